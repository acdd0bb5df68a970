"""The session's MCP servers as the model's tools: one :class:`McpHub` per session."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from spark_cli.mcp.mcp_config import McpServerConfig, cache_dir
from spark_cli.mcp.schema import PREFIX, wire_name, wire_schema
from spark_cli.mcp.server_link import ServerLink, failure
from spark_cli.protocol.secrets import Secrets
from spark_cli.record import record
from spark_cli.tools.model import ToolDef, ToolResult


@record
class McpSpecs:
    """What a request declares from MCP now, and one line per server left out."""

    tools: tuple[ToolDef, ...]
    notes: tuple[str, ...]


@record
class McpServerStatus:
    """One server for ``/mcp``: its state, what it runs, its tools and notes."""

    name: str
    state: str
    described: str
    source: str
    tools: tuple[str, ...]
    notes: tuple[str, ...]


class McpHub:
    """Every configured MCP server of one session: :meth:`start` returns at once, tools are
    declared from the live list or last run's cache, :meth:`call` never raises, and only
    ``allowed_tools`` runs unasked. ``env`` values and the bearer token are masked."""

    def __init__(self, servers: Sequence[McpServerConfig], root: Path, *,
                 cache: Path | None = None, environ: Mapping[str, str] | None = None) -> None:
        env = dict(os.environ if environ is None else environ)
        folder = cache if cache is not None else cache_dir(env)
        self._links = {s.name: ServerLink(s, Path(root), folder, env) for s in servers}
        self._secrets = Secrets()
        for s in servers:
            self._secrets |= s.secrets(env)
        self._names: dict[str, tuple[str, str]] = {}
        self._declared: dict[str, tuple[int, list[ToolDef], list[str]]] = {}

    def __repr__(self) -> str:
        return f"McpHub({', '.join(map(repr, self._links.values()))})"

    def __bool__(self) -> bool:
        return bool(self._links)

    def start(self) -> None:
        """Launch every enabled server in the background (call from the running loop)."""
        for link in self._links.values():
            link.start()

    def uncached(self) -> list[ServerLink]:
        """The enabled servers with no tool list yet, live or cached."""
        return [link for link in self._links.values() if link.config.enabled
                and link.live is None and link.cached() is None]

    async def wait_ready(self, *, uncached: bool = False) -> None:
        """Start the enabled servers; wait until each is ready or failed (at most its timeout)."""
        links = self.uncached() if uncached else [
            link for link in self._links.values() if link.config.enabled]
        await asyncio.gather(*(link.wait_ready() for link in links))

    def new_turn(self) -> None:
        """At a turn's start: restart each server that crashed, once per session."""
        for link in self._links.values():
            if link.state == "crashed" and link.restarts < 1:
                link.restarts += 1
                link.start()

    def _declare(self, link: ServerLink, tools: list[dict[str, Any]]) -> list[ToolDef]:
        seen = self._declared.get(link.config.name)
        if seen is not None and seen[0] == id(tools):
            return seen[1]
        defs: list[ToolDef] = []
        notes: list[str] = []
        for tool in tools:
            name = wire_name(link.config.name, tool["name"])
            schema, changes = wire_schema(tool.get("schema"))
            notes += [f"{tool['name']}: {change}" for change in changes]
            if schema is None or (name in self._names
                                  and self._names[name] != (link.config.name, tool["name"])):
                notes += [] if schema is None else [f"{tool['name']}: its name clashes; left out"]
                continue
            self._names[name] = (link.config.name, tool["name"])
            defs.append(ToolDef(name, self._secrets.mask(str(tool.get("description", ""))),
                                schema))
        self._declared[link.config.name] = (id(tools), defs, notes)
        return defs

    def specs(self) -> McpSpecs:
        """The tools to declare in this request, and a note per server left out."""
        tools: list[ToolDef] = []
        notes: list[str] = []
        for link in self._links.values():
            listed = link.live if link.state == "ready" else \
                link.cached() if link.state == "starting" else None
            if listed is not None:
                tools += self._declare(link, listed)
            elif link.state == "starting":
                notes.append(f"MCP server {link.config.name} is starting; its tools join a "
                             "later request")
            elif link.state in ("failed", "crashed"):
                again = "; restarted on the next turn" if link.state == "crashed" \
                    and link.restarts < 1 else ""
                notes.append(self._secrets.mask(f"MCP server {link.config.name} "
                                                f"{link.state}: {link.note}{again}"))
        return McpSpecs(tuple(tools), tuple(notes))

    def _lookup(self, name: str) -> tuple[ServerLink, str] | None:
        if name not in self._names and name.startswith(PREFIX):
            self.specs()  # a call from a resumed conversation, before any request declared
        found = self._names.get(name)
        return (self._links[found[0]], found[1]) if found else None

    def server_of(self, name: str) -> str | None:
        """The server a declared tool name belongs to (for events and labels)."""
        found = self._lookup(name)
        owners = self._owners(name)
        return found[0].config.name if found else owners[0].config.name if owners else None

    def allowed(self, name: str) -> bool:
        """Whether the call runs without asking: the tool is in its ``allowed_tools``."""
        found = self._lookup(name)
        return found is not None and found[1] in found[0].config.allowed_tools

    def _owners(self, name: str) -> list[ServerLink]:
        return sorted((link for link in self._links.values()
                       if name.startswith(wire_name(link.config.name, ""))),
                      key=lambda link: -len(link.config.name))

    async def wait_for(self, name: str) -> tuple[ServerLink, str] | None:
        """The server and tool behind ``name``, waiting for a server still listing its tools."""
        found = self._lookup(name)
        owners = self._owners(name)
        if found is None and owners and owners[0].state == "starting":
            await owners[0].wait_ready()
            found = self._lookup(name)
        return found

    async def call(self, name: str, arguments: str) -> ToolResult:
        """Call the tool declared as ``name`` with the model's JSON ``arguments``."""
        found = await self.wait_for(name)
        owners = self._owners(name)
        if found is None and owners and owners[0].state != "ready":
            return await owners[0].call(name, {})  # the server's state, as an error result
        if found is None:
            return failure(f"no MCP tool {name} (see /mcp)")
        link, tool = found
        try:
            parsed = json.loads(arguments) if arguments.strip() else {}
        except ValueError as exc:
            return failure(f"the arguments are not valid JSON ({exc})")
        if not isinstance(parsed, dict):
            return failure("the arguments must be a JSON object")
        try:
            result = await link.call(tool, parsed)
        except Exception as exc:  # never the turn's failure
            result = failure(f"{tool} failed: {type(exc).__name__}: {exc}")
        mask = self._secrets.mask
        return ToolResult(result.ok, mask(result.output), mask(result.summary))

    def status(self) -> tuple[McpServerStatus, ...]:
        """Every server for ``/mcp``."""
        out = []
        for link in self._links.values():
            listed = link.live if link.live is not None else link.cached() or []
            self._declare(link, listed)
            notes = [link.note] if link.note else []
            notes += self._declared.get(link.config.name, (0, [], []))[2]
            out.append(McpServerStatus(
                link.config.name, link.state, link.config.describe(), link.config.source,
                tuple(t["name"] for t in listed), tuple(self._secrets.mask(n) for n in notes)))
        return tuple(out)

    def status_lines(self) -> list[str]:
        """``/mcp`` as text: a line per server, its tools, its notes."""
        if not self._links:
            return ["no MCP servers configured (docs/mcp.md)"]
        lines = []
        for s in self.status():
            lines.append(f"{s.name}: {s.state} ({s.described.split(': ', 1)[1]}; {s.source})")
            lines.append("  tools: " + (", ".join(s.tools) or "(none yet)"))
            lines += [f"  note: {n}" for n in s.notes]
        return lines

    async def aclose(self) -> None:
        """Stop every server; returns once their processes are gone."""
        await asyncio.gather(*(link.stop() for link in self._links.values()))
