"""An MCP tool call as a turn runs it: allowed by its server's ``allowed_tools`` or by the
user's earlier "always", else the user's yes; then the hub's answer (never an exception).

The question is the approval of ``run_command`` (kind ``mcp``): "always" keeps the tool,
not its arguments. A front end that cannot ask refuses, and the model is told how the user
lets the tool run without asking. Esc withdraws the question and abandons a running call
(the hub's task is cancelled; the server stays up).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from spark_cli.mcp.hub import McpHub
from spark_cli.protocol.channel import ToolCall
from spark_cli.session.approval import ApprovalRequest, Approver, remember, remembered
from spark_cli.session.commands import until_stopped
from spark_cli.session.tool_access import call_label
from spark_cli.tools.model import ToolResult

DECLINED = ("declined: the user did not allow this tool call (allowed_tools in its "
            "[mcp_servers.NAME] table lets it run without asking)")


class McpCalls:
    """Runs one turn's ``mcp__SERVER__TOOL`` calls through the session's hub."""

    def __init__(self, hub: McpHub, root: Path, approver: Approver, stop: asyncio.Event,
                 stop_turn: Callable[[], Awaitable[None]]) -> None:
        self.hub = hub
        self.root = root
        self.approver = approver
        self.stop = stop
        self.stop_turn = stop_turn

    async def run(self, call: ToolCall) -> ToolResult | None:
        """The call's result; None when the turn was interrupted first."""
        name = call.name
        await until_stopped(self.hub.wait_for(name), self.stop)  # a server still starting
        if self.stop.is_set():
            return None
        if not (self.hub.allowed(name) or name in remembered(self.root, "mcp")):
            request = ApprovalRequest(call.call_id, "mcp", call_label(name, call.arguments),
                                      str(self.root), False, "an MCP server's tool")
            decision = await until_stopped(self.approver(request), self.stop)
            if decision is None:
                return None
            if decision == "stop":
                await self.stop_turn()
                return None
            if decision == "refuse":
                return ToolResult(False, DECLINED, "declined")
            if decision == "always":
                remember(self.root, "mcp", name)
        return await until_stopped(self.hub.call(name, call.arguments), self.stop)
