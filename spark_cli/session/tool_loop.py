"""One turn's tool loop: run a response's calls in order, answer each, build the follow-up.

Every call gets exactly one output under its id (an interrupted or unrun call: ``cancelled``
/ ``not run``), so the conversation stays valid on both wires.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from spark_cli.mcp.schema import PREFIX
from spark_cli.protocol.channel import (
    ConversationItem,
    Message,
    ToolCall,
    ToolOutput,
    ToolSpec,
    TurnRequest,
)
from spark_cli.session.actions.commands import CommandCalls
from spark_cli.session.context.tool_outputs import cut_output, item_tokens, shrink_outputs
from spark_cli.session.events import (
    CommandFinished,
    SessionEvent,
    ToolCallFinished,
    ToolCallStarted,
    ToolLoopStopped,
)
from spark_cli.session.servers import McpCalls
from spark_cli.session.tool_access import RunTool, call_label, call_line
from spark_cli.tools.defs import RUN_COMMAND
from spark_cli.tools.model import ToolResult

if TYPE_CHECKING:
    from spark_cli.session.extensions.hooks import Hooks

CANCELLED = "cancelled: the user interrupted the turn before this call finished"
NOT_RUN = "not run: the turn ended before this call ran"
OVER_BUDGET = ("not run: this turn reached its limit of {limit} tool calls (max_tool_calls); "
               "the user decides whether to go on")
STOPPED = "stopped: the model made {limit} tool calls in this turn (max_tool_calls)"
INLINE = frozenset({"read_file"})
"""Tools cheap and bounded enough to run on the event loop (see :class:`ToolLoop`)."""
PRIME_ARGUMENTS = '{"pattern": "spark", "path": ".spark/no-such-folder"}'
"""A search that compiles its pattern and stops at the path: imports, no walk."""
_primed: set[Path] = set()


class ToolLoop:
    """The tool calls of one turn and the conversation items they added.

    ``read_file`` runs on the loop (faster than a thread hop: `spark bench tools`); ``search`` and
    ``list_files`` run in a worker thread, cancelled on interrupt without waiting (they are
    read-only). After ``limit`` calls the rest are answered "not run" and the turn ends: a model
    that loops rarely wraps up well. An output too big for the window first drops older ones."""

    def __init__(self, root: Path, runner: RunTool, *, readable: Sequence[str], limit: int,
                 used: int, cap: int, warm: bool = True,
                 commands: CommandCalls | None = None, mcp: McpCalls | None = None,
                 specs: Callable[[], tuple[ToolSpec, ...]] | None = None,
                 hooks: Hooks | None = None) -> None:
        self.root = root
        self.hooks = hooks
        """The user's PreToolUse and PostToolUse hooks, around every call."""
        self.runner = runner
        self.commands = commands
        """Runs ``run_command`` calls (None: a stray one is an unknown tool)."""
        self.mcp = mcp
        """Runs ``mcp__SERVER__TOOL`` calls (None: no MCP server is configured)."""
        self.specs = specs
        """The tools to declare now (an MCP server that came up joins the next request)."""
        self.readable = tuple(readable)
        self.limit = limit
        self.items: list[ConversationItem] = []
        """What this turn added to the conversation after the user's message, so far."""
        self.count = 0
        """Calls run (the budget's count)."""
        self.budget_spent = False
        self.cancel = threading.Event()
        """Set on interrupt: the running tool returns early."""
        self._calls: list[ToolCall] = []
        self.used = used
        """The next request's size so far in spark's tokens."""
        self._cap = cap
        self._wake: asyncio.Future[None] | None = None
        self._warm = warm  # spark's own runner: prime() warms it; read_file runs inline
        self._head: tuple[Message, ...] | None = None  # after a compaction: the summary
        self._skip = 0  # ... which stands for the request's messages and items[:skip]

    # ---- while a response streams ----

    def collect(self, call: ToolCall) -> None:
        self._calls.append(call)

    @property
    def pending(self) -> bool:
        """The latest response made calls that are not answered yet."""
        return bool(self._calls)

    # ---- between responses ----

    async def answer(self, said: Sequence[Message],
                     stopped: Callable[[], bool]) -> AsyncIterator[SessionEvent]:
        """Run the response's calls in order and append the items (every call answered)."""
        calls, self._calls = self._calls, []
        self._extend([m for m in said if m.content])
        self._extend(calls)
        first_output = len(self.items)
        not_run = 0
        for call in calls:
            if stopped():
                self._answer(call, CANCELLED, first_output)
                continue
            if self.count >= self.limit:
                self.budget_spent = True
                not_run += 1
                self._answer(call, OVER_BUDGET.format(limit=self.limit), first_output)
                continue
            blocked = await self._pre(call)
            if call.name == RUN_COMMAND and self.commands is not None and blocked is None:
                finished: CommandFinished | None = None
                async for event in self.commands.run(call):
                    if type(event) is CommandFinished:
                        finished = event
                    else:
                        yield event
                assert finished is not None
                self.count += 1
                text = finished.output + await self._post(call, finished.output)
                text = self._answer(call, text, first_output)
                yield dataclasses.replace(finished, output=text)
                continue
            label = call_label(call.name, call.arguments)
            mcp = self.mcp if call.name.startswith(PREFIX) else None
            server = mcp.hub.server_of(call.name) if mcp is not None else None
            yield ToolCallStarted(call.call_id, call.name, call.arguments, label, server)
            began = time.perf_counter()
            result = await self._result(call, mcp, blocked)
            ms = (time.perf_counter() - began) * 1000
            self.count += 1
            if result is None or self.cancel.is_set():  # what a cancelled tool said is partial
                ok, summary, text = False, "cancelled", CANCELLED
            else:
                ok, summary, text = result.ok, result.summary, result.output
                text += await self._post(call, text, blocked)
            text = self._answer(call, text, first_output)
            yield ToolCallFinished(call.call_id, call.name, call.arguments, label, ok, summary,
                                   text, ms, call_line(label, summary), server)
        if not_run:
            yield ToolLoopStopped(STOPPED.format(limit=self.limit), self.count, not_run)

    def settle(self, said: Sequence[Message]) -> None:
        """The last response's unanswered calls join the conversation answered "not run"."""
        calls, self._calls = self._calls, []
        self._extend([m for m in said if m.content])
        self._extend(calls)
        for call in calls:
            self.items.append(ToolOutput(call.call_id, NOT_RUN))

    def sealed(self) -> list[ConversationItem]:
        """The items with every call answered (a consumer gone mid-loop: cancelled)."""
        items = list(self.items)
        calls = [i.call_id for i in items if type(i) is ToolCall]
        answered = sum(1 for i in items if type(i) is ToolOutput)
        items.extend(ToolOutput(call_id, CANCELLED) for call_id in calls[answered:])
        return items

    def follow_up(self, first: TurnRequest) -> TurnRequest:
        """The next request: the turn's first request extended by what the turn added."""
        tools = self.specs() if self.specs is not None else first.tools
        head = first.messages if self._head is None else self._head
        return dataclasses.replace(first, messages=(*head, *self.items[self._skip:]),
                                   tools=tools)

    def latest_round(self) -> int:
        """Where the latest response's items start (its text, its calls, their outputs)."""
        index = len(self.items)
        for kinds in ((ToolOutput,), (ToolCall,), (Message,)):
            while index and type(self.items[index - 1]) in kinds:
                index -= 1
                if kinds == (Message,):
                    break
        return index

    def fold(self, first: TurnRequest, summary: Message, skip: int) -> None:
        """``summary`` stands for the request's messages and ``items[:skip]`` from now on."""
        before = first.messages if self._head is None else self._head
        self.used += item_tokens(summary) - sum(map(item_tokens, before)) - sum(
            item_tokens(item) for item in self.items[self._skip:skip])
        self._head, self._skip = (summary,), skip

    def prime(self) -> None:
        """Warm the tools in the worker thread once per repo and process, while the model works."""
        if not self._warm or self.root in _primed:
            return
        _primed.add(self.root)
        work = asyncio.get_running_loop().run_in_executor(None, functools.partial(
            self.runner, self.root, "search", PRIME_ARGUMENTS, readable=(), cancel=None))
        work.add_done_callback(_forget)

    def interrupt(self) -> None:
        """Stop now: the running call is cancelled and not waited for."""
        self.cancel.set()
        if self.commands is not None:
            self.commands.stop.set()
        wake = self._wake
        if wake is not None and not wake.done():
            wake.set_result(None)

    # ---- internals ----

    async def _pre(self, call: ToolCall) -> str | None:
        return await self.hooks.pre(call.name, call.arguments) if self.hooks else None

    async def _post(self, call: ToolCall, output: str, blocked: str | None = None) -> str:
        if self.hooks is None or blocked is not None:
            return ""
        return await self.hooks.post(call.name, call.arguments, output)

    async def _result(self, call: ToolCall, mcp: McpCalls | None,
                      blocked: str | None) -> ToolResult | None:
        if blocked is not None:
            return ToolResult(False, f"blocked by a hook: {blocked}", "blocked by a hook")
        return await (mcp.run(call) if mcp is not None else self._run(call))

    def _extend(self, items: Sequence[ConversationItem]) -> None:
        for item in items:
            self.used += item_tokens(item)
        self.items.extend(items)

    def _answer(self, call: ToolCall, text: str, first_output: int) -> str:
        """Append the output of ``call`` (made to fit the window); the text as sent."""
        need = item_tokens(ToolOutput(call.call_id, text))
        over = self.used + need - self._cap
        if over > 0:  # older outputs of this turn go first, then this one is cut
            self.items, freed = shrink_outputs(self.items, over, keep_from=first_output)
            self.used -= freed
            over -= freed
        if over > 0:
            text = cut_output(text, max(0, need - over - item_tokens(ToolOutput("", ""))))
        output = ToolOutput(call.call_id, text)
        self.used += item_tokens(output)
        self.items.append(output)
        return text

    async def _run(self, call: ToolCall) -> ToolResult | None:
        """The call's result; None when interrupted (its thread is left to end by itself)."""
        run = functools.partial(self.runner, self.root, call.name, call.arguments,
                                readable=self.readable, cancel=self.cancel)
        try:
            if call.name in INLINE and self._warm:  # a stand-in may wait (an editor's read)
                return run()
            loop = asyncio.get_running_loop()
            work = loop.run_in_executor(None, run)
            wake = self._wake = loop.create_future()
            try:
                await asyncio.wait((work, wake), return_when=asyncio.FIRST_COMPLETED)
            finally:
                self._wake = None
                if not wake.done():
                    wake.cancel()
            if not work.done():
                work.add_done_callback(_forget)
                return None
            return work.result()
        except Exception as exc:  # the runner promises never to raise; if it does, say so
            return ToolResult(False, f"error: the tool {call.name!r} broke: {exc!r}", "error")


def _forget(work: asyncio.Future[ToolResult]) -> None:
    """Collect an abandoned call's outcome so asyncio does not report it as never retrieved."""
    if not work.cancelled():
        work.exception()
