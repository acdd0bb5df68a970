"""Placeholder until its owner lands the benchmark (see the issue)."""

import typer


def register(bench_app: typer.Typer) -> None:
    """Adds nothing yet."""
