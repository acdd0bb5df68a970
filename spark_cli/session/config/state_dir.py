"""The user's state dir for spark: ``$SPARK_STATE_DIR``, else platformdirs' user state dir
(``~/.local/state/spark`` on Linux). The trust store and the undo journals live here, outside
every repo (`session.workspace.store` keeps the saved sessions under the same base)."""

from __future__ import annotations

import os
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
