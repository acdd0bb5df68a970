"""The `spark` command: one typer app; each sub-command lives in its own module.

Every command module exposes ``register(app)`` and keeps heavy imports (textual,
httpx, websockets, uvicorn, tree-sitter) inside the command bodies, so that
`spark --help` and the one-shot path only pay for what they use.
"""

from __future__ import annotations

import importlib

import typer

from spark_cli import __version__

# Sub-command modules under spark_cli.cli, each with ``register(app: typer.Typer)``.
COMMAND_MODULES = ("engine_cmd", "apply_cmd", "undo_cmd", "edit_cmd", "config_cmd", "bench_cmd")

app = typer.Typer(
    name="spark",
    help="A terminal pair programmer for fast (1000+ tokens/s) coding models.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"spark {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """A terminal pair programmer for fast (1000+ tokens/s) coding models."""


for _name in COMMAND_MODULES:
    importlib.import_module(f"spark_cli.cli.{_name}").register(app)


def run() -> None:
    """Console-script entry point."""
    app()
