"""`spark trust [--yes] [--show] [--revoke]`: trust this repo's project files as they are now,
after showing what they would set (no terminal and no ``--yes``: exit 1, nothing changed)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    @app.command("trust")
    def trust_command(
        yes: bool = typer.Option(False, "--yes", "-y", help="Trust without asking (scripts)."),
        show: bool = typer.Option(False, "--show", help="Show the trust state; change nothing."),
        revoke: bool = typer.Option(False, "--revoke", help="No longer trust this repo."),
        root: Path | None = typer.Option(None, "--root", help="Repo root (default: the repo "
                                                              "of cwd)."),
    ) -> None:
        """Trust this repo's project files (.spark/config.toml...) so spark reads them."""
        # deferred: spark --help
        from spark_cli.session.config.project_view import project_lines
        from spark_cli.session.config.trust import set_trust, store_path, trust_state
        from spark_cli.tui.setup import project_root

        state = trust_state(project_root(root or Path.cwd()), os.environ)
        if state.status == "none":
            typer.echo(f"no project files in {state.root}: nothing to trust")
            return
        if revoke:
            _write(lambda: set_trust(state, False, os.environ))
            typer.echo(f"{state.root}: no longer trusted (its project files are ignored)")
            return
        status = {"trusted": "trusted", "changed": "changed since you trusted it: not trusted",
                  "untrusted": "not trusted"}[state.status]
        typer.echo(f"trust                {status}" + (f" ({state.problem})" if state.problem
                                                      else ""))
        typer.echo(f"trust store          {store_path(os.environ)}")
        typer.echo("\n".join(project_lines(state, os.environ)))
        if show or state.trusted:
            return
        if not yes:
            if not (sys.stdin.isatty() and sys.stdout.isatty()):
                typer.echo("spark trust: not a terminal: nothing changed (spark trust --yes "
                           "trusts without asking)", err=True)
                raise typer.Exit(1)
            if not typer.confirm("Trust these project files?", default=False):
                typer.echo("not trusted: nothing changed")
                return
        _write(lambda: set_trust(state, True, os.environ))
        typer.echo(f"trusted {state.root} ({len(state.files)} project files); a change to "
                   "them asks again")


def _write(change: Callable[[], object]) -> None:
    try:
        change()
    except ValueError as exc:
        typer.echo(f"spark trust: {exc}; nothing changed", err=True)
        raise typer.Exit(2) from None
