"""`spark mcp list [--json]`: start the configured MCP servers, print each one's state and
tools, refresh the tool cache, stop them. Exit 1 when one did not start, 2 for a bad table."""

from __future__ import annotations

import json
import os
from pathlib import Path

import typer


def list_servers(root: Path, *, as_json: bool) -> int:
    """Start, list, stop; the exit code."""
    import asyncio  # deferred: spark --help

    # deferred: spark --help
    from spark_cli.mcp.hub import McpHub
    from spark_cli.mcp.mcp_config import McpConfigError, read_servers
    from spark_cli.session.config.layers import config_files

    try:
        servers = read_servers(config_files(root, os.environ))
    except McpConfigError as exc:
        typer.echo(f"spark mcp: {exc}", err=True)
        return 2
    hub = McpHub(servers, root)

    async def run() -> tuple[list[str], bool]:
        try:
            await hub.wait_ready()
            statuses, lines = hub.status(), hub.status_lines()
        finally:
            await hub.aclose()
        down = any(s.state not in ("ready", "off") for s in statuses)
        if as_json:
            return [json.dumps([{"name": s.name, "state": s.state, "server": s.described,
                                 "source": s.source, "tools": list(s.tools),
                                 "notes": list(s.notes)} for s in statuses], indent=2)], down
        return lines, down

    lines, down = asyncio.run(run())
    for line in lines:
        typer.echo(line)
    return 1 if down else 0


def register(app: typer.Typer) -> None:
    mcp = typer.Typer(help="MCP servers: list them, their tools and state.",
                      no_args_is_help=True)

    @mcp.command("list")
    def list_command(
        root: Path | None = typer.Option(None, "--root", help="Repo root (default: cwd)."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
    ) -> None:
        """Start the configured servers, print their state and tools, refresh the cache."""
        raise typer.Exit(list_servers((root or Path.cwd()).resolve(), as_json=as_json))

    app.add_typer(mcp, name="mcp")
