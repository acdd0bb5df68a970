"""`spark` with no command: the interactive session in this repo (the TUI), wired with its
settings, session and channel; not a terminal: a pointer to ``spark edit``, exit 2."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spark_cli.protocol.channel import Channel
    from spark_cli.session.config.settings import Settings

EXIT_USAGE = 2
NOT_A_TTY = ("spark: the interactive session needs a terminal; for pipes and scripts use "
             "`spark edit` (e.g. cat f.py | spark edit -m \"...\" > g.py)")


@asynccontextmanager
async def connect(settings: Settings) -> AsyncIterator[Channel]:
    """The channel the settings describe, open for the whole session (with a warm spare);
    channels open at once share one bundled engine."""
    # deferred: spark --help
    from spark_cli.cli.wiring import WiringError, open_provider_channel, shared_provider
    from spark_cli.protocol.channel import ChannelError  # deferred: spark --help

    try:
        async with shared_provider(settings.provider) as provider, open_provider_channel(
                provider, idle_timeout=settings.idle_timeout, one_shot=False,
                first_token_timeout=settings.first_token_timeout) as channel:
            yield channel
    except WiringError as exc:
        raise ChannelError("bad_request", str(exc)) from None


def _deep_settings(root: Path) -> Settings:
    from spark_cli.session.deep.deep_settings import load_deep_settings  # deferred: spark --help

    return load_deep_settings(root, {}, os.environ)


def run_tui(flags: Mapping[str, object], root: Path | None, *, resume: str | None = None) -> int:
    """Open the TUI; the exit code. ``resume``: ``spark --resume [ID]`` ("" without an ID)."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print(NOT_A_TTY, file=sys.stderr)
        return EXIT_USAGE
    from spark_cli.tui.tuning.fast_esc import set_escape_delay  # deferred: spark --help

    set_escape_delay()  # before textual reads it
    from spark_cli.cli.edit.edit_run import UsageError  # deferred: spark --help
    from spark_cli.cli.edit.edit_settings import load  # deferred: spark --help
    from spark_cli.session.conversation import Session  # deferred: spark --help
    from spark_cli.session.workspace.store import SessionStore  # deferred: spark --help
    from spark_cli.tui.app import SparkApp  # deferred: spark --help
    from spark_cli.tui.setup import TuiSetup, project_root  # deferred: spark --help
    from spark_cli.tui.tuning.fast_esc import FastEscDriver  # deferred: spark --help

    base = project_root(root or Path.cwd())
    try:
        settings = load(base, dict(flags))
    except UsageError as exc:
        print(f"spark: {exc}", file=sys.stderr)
        return EXIT_USAGE
    session = Session(None, base, settings)
    setup = TuiSetup(session=session, connect=connect, store=SessionStore(base),
                     flags=dict(flags), resume=resume is not None,
                     resume_id=resume or "", load_deep=lambda: _deep_settings(base))
    app = SparkApp(setup, driver_class=FastEscDriver)
    code = app.run()
    return code if isinstance(code, int) else 0
