"""What the CLI hands the TUI (:class:`TuiSetup`) and where a repo's root is."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from pathlib import Path

from spark_cli.record import record
from spark_cli.session.api import Connector, SessionApi
from spark_cli.session.config.settings import Settings
from spark_cli.session.workspace.store import SessionStore


@record
class TuiSetup:
    """What the CLI hands the app: the session, how to connect, where state lives."""

    session: SessionApi
    connect: Connector
    store: SessionStore | None = None
    """Draft, queue, prompt history and the conversation, kept per repo (None: nothing kept)."""
    flags: dict[str, object] = field(default_factory=dict)
    """The command line's settings flags (``/model`` and ``/provider`` add to them)."""
    resume: bool = False
    """Reopen a saved conversation at start (``spark --resume``)."""
    resume_id: str = ""
    """The one ``spark --resume ID`` names."""
    deep_settings: Settings | None = None
    """The deep track's provider (``[deep]``); None: the deep track is off."""
    deep_problem: str = "no deep provider is configured"
    """Why it is off (a bad ``[deep]`` table, say)."""
    load_deep: Callable[[], Settings] | None = None
    """Reads the deep settings after the first frame (a problem turns the track off)."""


def project_root(path: Path) -> Path:
    """The repo root for ``path``: the nearest folder with .git, else ``path`` itself."""
    path = path.resolve()
    for folder in (path, *path.parents):
        if (folder / ".git").exists():
            return folder
    return path
