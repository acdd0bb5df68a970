"""Placeholder until its owner lands the command (see the issue)."""

import typer


def register(app: typer.Typer) -> None:
    """Adds nothing yet."""
