"""The console script (`spark`): a bare `spark` (the TUI) and a plain `spark edit ...` run
without loading typer.

Everything else (and any `spark edit` line that is not plain, see
``spark_cli.cli.edit.edit_args``) goes to the typer app in ``spark_cli.cli.main``.
Skipping typer and click saves about half of the instructions a WebSocket
`spark edit` spends before its request leaves.

No cycle collections during a one-shot's start-up (``gc.disable()`` here, the collector
back on once the request left) saves 23 ms of launch → request on the WebSocket and
16 ms of the bundled tiny edit (paired runs, 2026-12-04; docs/benchmarks.md, Ledger);
`spark bench oneshot` shows both.
"""

from __future__ import annotations

import sys

_DEFERRED = ("inspect", "ipaddress", "traceback")
"""Imported by the libraries on the way to a one-shot's request and not used there:
``inspect`` by dataclasses (only to write the docstring of a dataclass that has
none; ~8 ms with ast, dis and tokenize), ``ipaddress`` by urllib.parse (only
for a URL with a bracketed host; ~2 ms), ``traceback`` by logging (only to
format an exception or a stack; ~2.5 ms with linecache, tokenize and textwrap,
on the WebSocket way). Each is imported when first read
(:func:`spark_cli.lazy_modules.defer`), by asyncio's loop after the request for
one."""


def run() -> None:
    """Console-script entry point."""
    argv = sys.argv[1:]
    if not argv:  # `spark`: the interactive session, without building the whole CLI first
        from spark_cli.cli.tui_cmd import run_tui

        sys.exit(run_tui({}, None))
    if argv[:1] == ["edit"]:
        import gc

        gc.disable()  # no cycle collections while importing: the turn enables it once its
        # request left (``edit_run.run_turn``); ~6-10 ms of the way to the request
        from spark_cli.lazy_modules import defer

        for name in _DEFERRED:
            defer(name)
        from spark_cli.cli.edit.edit_args import parse_edit_args

        args = parse_edit_args(argv[1:])
        if args is not None:
            from spark_cli.cli.edit.edit_cmd import run_edit

            run_edit(args)
    from spark_cli.cli.main import run as run_typer

    run_typer()
