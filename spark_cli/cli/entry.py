"""The console script (`spark`): a bare `spark` (the TUI) and a plain `spark edit ...` run
without loading typer.

Everything else (and any `spark edit` line that is not plain, see
``spark_cli.cli.edit.edit_args``) goes to the typer app in ``spark_cli.cli.main``.
Reading `spark edit` without typer is a start-up trick, off with the rest under
``SPARK_PLAIN`` (:mod:`spark_cli.transport.fast`).
"""

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
