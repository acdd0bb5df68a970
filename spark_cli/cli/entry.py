"""The console script (`spark`): a bare `spark` and a plain `spark edit ...` run without
typer (a start-up trick, off under ``SPARK_PLAIN``); anything else goes to ``cli.main``."""

from __future__ import annotations

import sys

from spark_cli import __version__


def run() -> None:
    """Console-script entry point."""
    argv = sys.argv[1:]
    if argv == ["--version"]:  # without typer: scripts ask this often
        print(f"spark {__version__}")
        return
    if not argv:  # `spark`: the interactive session, without building the whole CLI first
        from spark_cli.cli.tui_cmd import run_tui  # deferred: spark --version

        sys.exit(run_tui({}, None))
    if argv[:1] == ["edit"]:
        from spark_cli.transport.fast import on  # deferred: spark --version

        if on("edit_args"):
            from spark_cli.cli.edit.edit_args import parse_edit_args  # deferred: spark --version

            args = parse_edit_args(argv[1:])
            if args is not None:
                from spark_cli.cli.edit.edit_cmd import run_edit  # deferred: spark --version

                run_edit(args)
    from spark_cli.cli.main import run as run_typer  # deferred: spark --version

    run_typer()
