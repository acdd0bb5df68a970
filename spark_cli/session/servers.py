"""The session's MCP servers: read from the config when a request first needs them, their tools
declared in every request (live, else cached), started and stopped by the front end, listed by
``/mcp``; and a turn's calls of their tools (cleared by the orchestrator).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from spark_cli.mcp.schema import PREFIX
from spark_cli.protocol.channel import ToolCall, ToolSpec, TurnRequest
from spark_cli.session.actions.approval import until_stopped
from spark_cli.session.config.layers import config_files, read_toml
from spark_cli.session.config.settings import Settings
from spark_cli.session.tool_access import call_label, spec_of
from spark_cli.tools.model import ToolResult

if TYPE_CHECKING:
    from spark_cli.mcp.hub import McpHub
    from spark_cli.session.actions.orchestrator import Orchestrator


class McpServers:
    """The MCP side of one session (see the module doc)."""

    def __init__(self, root: Path, settings: Callable[[], Settings]) -> None:
        self.root = root
        self.settings = settings
        self.notes: tuple[str, ...] = ()
        """Servers the latest request left out, one line each."""
        self._hub: McpHub | Literal[False] | None = False  # False: not read yet

    def hub(self) -> McpHub | None:
        """The configured servers (read once; None when there are none)."""
        if self._hub is False:
            self._hub = None
            settings = self.settings()
            if settings.tools and any(_names_mcp(path) for path in settings.files):
                # deferred: launch -> request without MCP
                from spark_cli.mcp.hub import McpHub
                from spark_cli.mcp.mcp_config import read_servers

                servers = read_servers(config_files(self.root, os.environ), read_toml)
                self._hub = McpHub(servers, self.root) or None
        return self._hub

    def specs(self) -> tuple[ToolSpec, ...]:
        """The MCP tools to declare now (and ``notes`` for the servers left out)."""
        hub = self.hub()
        if hub is None:
            self.notes = ()
            return ()
        specs = hub.specs()
        self.notes = specs.notes
        return tuple(map(spec_of, specs.tools))

    def follow_up(self, first: TurnRequest) -> Callable[[], tuple[ToolSpec, ...]]:
        """A follow-up's tools: spark's own as first sent, the MCP tools of now."""
        own = tuple(t for t in first.tools if not t.name.startswith(PREFIX))
        return lambda: (*own, *self.specs())

    def calls(self, orchestrator: Orchestrator) -> McpCalls | None:
        """This turn's MCP calls (a crashed server is restarted once); None without servers."""
        hub = self.hub()
        if hub is None:
            return None
        hub.new_turn()
        return McpCalls(hub, orchestrator)

    def uncached(self) -> bool:
        """Some configured server has no tool list yet (no run listed its tools)."""
        hub = self.hub()
        return hub is not None and bool(hub.uncached())

    async def wait_uncached(self) -> None:
        hub = self.hub()
        if hub is not None:
            await hub.wait_ready(uncached=True)

    def start(self) -> None:
        hub = self.hub()
        if hub is not None:
            hub.start()

    async def aclose(self) -> None:
        if self._hub:
            await self._hub.aclose()

    def status_lines(self) -> list[str]:
        hub = self.hub()
        if hub is None:
            return ["no MCP servers configured: [mcp_servers.NAME] in a config file "
                    "(docs/mcp.md)"]
        return hub.status_lines()


class McpCalls:
    """Runs one turn's ``mcp__SERVER__TOOL`` calls through the session's hub."""

    def __init__(self, hub: McpHub, orchestrator: Orchestrator) -> None:
        self.hub, self.orchestrator = hub, orchestrator

    async def run(self, call: ToolCall) -> ToolResult | None:
        """The call's result; None when the turn was interrupted first."""
        # deferred: the orchestrator loads with the turn's first call
        from spark_cli.session.actions.orchestrator import Action

        name, stop = call.name, self.orchestrator.stop
        await until_stopped(self.hub.wait_for(name), stop)  # a server still starting
        if stop.is_set():
            return None
        cleared = await self.orchestrator.clear(Action(
            "mcp", call_label(name, call.arguments), call.call_id, name, self.hub.allowed(name)))
        if cleared is None or cleared.verdict != "run":
            return None if cleared is None else ToolResult(False, cleared.reason, "declined")
        return await until_stopped(self.hub.call(name, call.arguments), stop)


def _names_mcp(path: str) -> bool:
    try:
        return "mcp_servers" in read_toml(Path(path))
    except ValueError:
        return False
