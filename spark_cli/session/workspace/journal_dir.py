"""Where a repo's undo journal lives: the one answer every reader and writer asks.

In the user's state dir beside the repo's saved session (``state_base() / repos /
<slug> / undo``), never in the repo: a command the model runs cannot plant or forge a batch
that `spark undo` would restore.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from spark_cli.session.config.state_dir import state_base
from spark_cli.session.workspace.store import repo_slug


def undo_dir(root: Path, env: Mapping[str, str] | None = None) -> Path:
    """The undo journal's folder for the repo at ``root`` (its real path)."""
    return state_base(env) / "repos" / repo_slug(root) / "undo"
