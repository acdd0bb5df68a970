"""`spark undo [--force] [--list]`: restore the last applied batch, or list the batches."""

from __future__ import annotations

import time
from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    @app.command("undo")
    def undo_command(
        force: bool = typer.Option(False, "--force", help="Restore even if files changed since."),
        list_: bool = typer.Option(False, "--list", help="List recorded batches, newest first."),
        root: Path | None = typer.Option(None, "--root", help="Repo root (default: cwd)."),
    ) -> None:
        """Undo the last batch of edits spark applied (one answer or one `spark apply`)."""
        # deferred: spark --help
        from spark_cli.edits.disk.journal import UndoRefused, history, undo
        from spark_cli.session.config.state_dir import undo_dir

        base = root or Path.cwd()
        if list_:
            batches = history(undo_dir(base))
            if not batches:
                typer.echo("no recorded batches")
            for batch in batches:
                when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(batch.time))
                label = f" {batch.label}" if batch.label else ""
                typer.echo(f"{batch.id}  {when}{label}: {batch.summary}")
                for record in batch.files:
                    typer.echo(f"    {record.change:8} {record.path}")
            return
        try:
            result = undo(base, undo_dir(base), force=force)
        except UndoRefused as exc:
            typer.echo(f"spark undo: {exc.message}", err=True)
            raise typer.Exit(1) from None
        typer.echo(f"undid batch {result.batch.id}: restored {', '.join(result.restored)}")
