"""`spark acp`: spark as an editor's agent over the Agent Client Protocol on stdio (docs/acp.md).

Wires each session's settings and channel for the front end; the ACP SDK is imported only
inside the command."""

from __future__ import annotations

from functools import partial

import typer

from spark_cli.cli import options
from spark_cli.cli.edit.edit_settings import edit_flags, resolved


def register(app: typer.Typer) -> None:
    @app.command("acp")
    def acp_command(
        provider: str | None = options.PROVIDER,
        model: str | None = options.MODEL,
        base_url: str | None = options.BASE_URL,
        commands: str | None = typer.Option(None, "--commands",
                                            help="ask (the default), sandbox or off."),
    ) -> None:
        """Serve an editor (Zed, JetBrains, Neovim) over the Agent Client Protocol on stdio."""
        import asyncio  # deferred: spark --help

        # deferred: spark --help (the ACP SDK: `spark acp` only)
        from spark_cli.acp.agent import AcpSetup, serve
        from spark_cli.cli.tui_cmd import connect

        flags = edit_flags(provider=provider, model=model, base_url=base_url, commands=commands)
        asyncio.run(serve(AcpSetup(settings=partial(resolved, flags=flags), connect=connect)))
