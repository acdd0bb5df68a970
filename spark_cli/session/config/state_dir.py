"""The user's state dir for spark: ``$SPARK_STATE_DIR``, else platformdirs' user state dir
(``~/.local/state/spark`` on Linux), and each repo's folder in it (``repos/<slug>``). The
trust store, the undo journals, the approvals and the saved sessions live here, outside every
repo, so a repo or a command the model runs cannot plant or forge them."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from pathlib import Path

STATE_ENV = "SPARK_STATE_DIR"


def state_base(env: Mapping[str, str] | None = None) -> Path:
    """``$SPARK_STATE_DIR`` (of ``env``, else the process's) or the platform's state dir."""
    override = (os.environ if env is None else env).get(STATE_ENV)
    if override:
        return Path(override)
    import platformdirs  # deferred: launch (only without an override)

    return Path(platformdirs.user_state_path("spark", appauthor=False))


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def repo_slug(root: Path) -> str:
    """``<folder name>-<12 hex of sha256(resolved path)>``: readable and unique per repo."""
    resolved = Path(os.path.realpath(root))
    name = _UNSAFE.sub("_", resolved.name).strip("._")[:40] or "root"
    digest = hashlib.sha256(os.fsencode(resolved)).hexdigest()[:12]
    return f"{name}-{digest}"


def undo_dir(root: Path, env: Mapping[str, str] | None = None) -> Path:
    """The undo journal's folder for the repo at ``root`` (beside its saved sessions)."""
    return state_base(env) / "repos" / repo_slug(root) / "undo"
