"""The options several commands share, defined once."""

from __future__ import annotations

import typer

PROVIDER = typer.Option(None, "--provider", help="mock, openai, cerebras, openai-compatible.")
MODEL = typer.Option(None, "--model", help="Model name.")
BASE_URL = typer.Option(None, "--base-url", help="Provider API root.")
FORMAT = typer.Option(None, "--format", help="Edit format: search_replace or apply_patch.")
NO_TOOLS = typer.Option(False, "--no-tools",
                        help="Give the model no tools (it cannot read the repo).")
