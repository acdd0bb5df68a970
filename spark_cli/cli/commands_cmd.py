"""`spark commands`: the user's prompt files as slash commands, each with the file it is from;
a broken one is listed with why, untrusted project folders named on stderr."""

from __future__ import annotations

import os
from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    @app.command("commands")
    def commands_command(
        root: Path | None = typer.Option(None, "--root", help="Repo root (default: the repo "
                                                              "of cwd)."),
    ) -> None:
        """List your slash commands (prompt files) and skills, and the files they come from."""
        # deferred: spark --help
        from spark_cli.session.config.trust import trust_state
        from spark_cli.session.extensions.prompt_files import PROJECT_COMMANDS, load_commands
        from spark_cli.session.extensions.skills import load_skills
        from spark_cli.tui.commands.slash import RESERVED
        from spark_cli.tui.setup import project_root

        base = project_root(root or Path.cwd())
        state = trust_state(base, os.environ)
        if not state.trusted and any((base / f).is_dir() for f in PROJECT_COMMANDS):
            typer.echo(f"spark: {state.line()}", err=True)
        found = load_commands(base, RESERVED)
        if not found:
            typer.echo("no prompt files (see docs/extensions.md)")
        for command in found:
            what = f"BROKEN: {command.problem}" if command.problem else command.description
            name = f"/{command.name} {command.argument_hint}".rstrip()
            typer.echo(f"{name:<28} {what}\n{'':<28} {command.path}")
        for skill in load_skills(base):
            what = f"BROKEN: {skill.problem}" if skill.problem else skill.description
            typer.echo(f"{'$' + skill.name:<28} {what}\n{'':<28} {skill.path}")
