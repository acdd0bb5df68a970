"""The `spark` command: one typer app; each sub-command in its own module, heavy imports
inside the command bodies."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import typer

from spark_cli import __version__
from spark_cli.cli import options
from spark_cli.cli.edit.edit_settings import edit_flags

# Sub-command name -> module under spark_cli.cli with ``register(app: typer.Typer)``.
COMMAND_MODULES = {
    "apply": "apply_cmd",
    "undo": "undo_cmd",
    "rewind": "rewind_cmd",
    "edit": "edit.edit_cmd",
    "config": "config_cmd",
    "trust": "trust_cmd",
    "commands": "commands_cmd",
    "engine": "engine_cmd",
    "bench": "bench_cmd",
    "acp": "acp_cmd",
    "mcp": "mcp_cmd",
}

_app = typer.Typer(
    name="spark",
    help="A terminal pair programmer for fast (1000+ tokens/s) coding models. With no command: "
    "the interactive session in this repo.",
    no_args_is_help=False,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"spark {__version__}")
        raise typer.Exit()


@_app.callback(invoke_without_command=True)
def _root(
    ctx: typer.Context,
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
    provider: str | None = options.PROVIDER,
    model: str | None = options.MODEL,
    base_url: str | None = options.BASE_URL,
    edit_format: str | None = options.FORMAT,
    root: Path | None = typer.Option(None, "--root", help="Repo root (default: the repo of cwd)."),
    resume: str | None = typer.Option(
        None, "--resume", metavar="[ID]",
        help="Reopen a saved conversation: the last one, or a list when there are several; "
             "--resume ID opens that one."),
    no_tools: bool = options.NO_TOOLS,
    commands: str | None = typer.Option(
        None, "--commands", help="May the model run commands: ask (the default: you say yes "
                                 "each time), sandbox (no asking, sandboxed), off or "
                                 "full-access (no asking, no sandbox: containers)."),
) -> None:
    """A terminal pair programmer for fast (1000+ tokens/s) coding models.

    With no command, `spark` opens the interactive session (docs/tui.md).
    """
    flags = edit_flags(provider=provider, model=model, base_url=base_url,
                       edit_format=edit_format, commands=commands, no_tools=no_tools)
    if ctx.invoked_subcommand is not None:
        if flags or root is not None or resume is not None:
            typer.echo(f"spark: --provider, --model, --base-url, --format, --no-tools, "
                       f"--commands, --root and --resume are for the interactive session; put "
                       f"the first six after `{ctx.invoked_subcommand}`", err=True)
            raise typer.Exit(2)
        return
    from spark_cli.cli.tui_cmd import run_tui  # deferred: spark --help

    raise typer.Exit(run_tui(flags, root, resume=resume))


_registered: set[str] = set()


def register_commands(argv: list[str] | None = None) -> typer.Typer:
    """Add the sub-commands to ``app``: only the one ``argv`` names (all for help or none)."""
    first = next((a for a in argv or () if not a.startswith("-")), None)
    wanted = [COMMAND_MODULES[first]] if first in COMMAND_MODULES else COMMAND_MODULES.values()
    for module in wanted:
        if module not in _registered:
            importlib.import_module(f"spark_cli.cli.{module}").register(_app)
            _registered.add(module)
    return _app


def __getattr__(name: str) -> typer.Typer:
    """``from spark_cli.cli.main import app`` gives the app with every command."""
    if name == "app":
        return register_commands()
    raise AttributeError(name)


def bare_resume(argv: list[str]) -> list[str]:
    """``--resume`` with no ID after it as ``--resume=`` (typer has no optional values)."""
    return [f"{arg}=" if arg == "--resume" and (at + 1 == len(argv) or argv[at + 1][:1] == "-")
            else arg for at, arg in enumerate(argv)]


def run() -> None:
    """Console-script entry point."""
    argv = bare_resume(sys.argv[1:])
    register_commands(argv)(args=argv)
