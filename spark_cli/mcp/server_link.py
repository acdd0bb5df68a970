"""One MCP server: its connection, held open by a background task, and its calls.

Every call failure is an error result; a server gone mid-call is ``crashed`` and restarted
once on the next turn. Answers reach the model as text (`to_result`)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from spark_cli.mcp.mcp_config import McpServerConfig, cache_key, load_tools, save_tools
from spark_cli.tools.model import ToolResult

if TYPE_CHECKING:
    from spark_cli.mcp import sdk
    from spark_cli.mcp.sdk import types

State = Literal["off", "starting", "ready", "failed", "crashed", "stopped"]
CONNECTION_CLOSED, REQUEST_TIMEOUT = -32000, -32001  # JSON-RPC codes the SDK raises with
MAX_OUTPUT = 60_000
STOP_WAIT_S = 8.0
"""How long :meth:`ServerLink.stop` waits for the SDK's shutdown before cancelling."""


async def load_sdk() -> None:
    """Import :mod:`spark_cli.mcp.sdk` in a daemon thread (a pool's would be joined at exit)."""
    loaded: concurrent.futures.Future[None] = concurrent.futures.Future()

    def work() -> None:
        if loaded.set_running_or_notify_cancel():  # as an executor runs a task
            try:
                # deferred: launch -> request (the SDK loads in a worker thread, never on the way)
                import spark_cli.mcp.sdk  # noqa: F401
                loaded.set_result(None)
            except BaseException as exc:  # handed to the awaiting task
                loaded.set_exception(exc)

    threading.Thread(target=work, name="mcp sdk import", daemon=True).start()
    await asyncio.wrap_future(loaded)


class ServerLink:
    """One configured server: its state, its tools (live or cached) and its connection."""

    def __init__(self, config: McpServerConfig, root: Path, cache: Path,
                 environ: dict[str, str]) -> None:
        self.config, self.root, self.cache, self.environ = config, root, cache, environ
        self.state: State = "starting" if config.enabled else "off"
        self.note = "" if config.enabled else "disabled (enabled = false)"
        self.live: list[dict[str, Any]] | None = None
        self.restarts = 0
        self.closed = False
        self._cached: list[dict[str, Any]] | None = None
        self._key: str | None = None
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._client: sdk.Client | None = None
        self._scope: sdk.anyio.CancelScope | None = None

    def __repr__(self) -> str:
        return f"ServerLink({self.config.name!r}, {self.state})"

    @property
    def key(self) -> str:
        if self._key is None:
            self._key = cache_key(self.config, self.root)
        return self._key

    def cached(self) -> list[dict[str, Any]] | None:
        """The tools of the last run (read once, on first use)."""
        if self._cached is None:
            self._cached = load_tools(self.cache, self.config, self.key) or []
        return self._cached or None

    def start(self) -> None:
        """Start the server in the background (a crashed one anew once its connection closed)."""
        previous = self._task
        busy = previous is not None and not previous.done() and self.state != "crashed"
        if not self.config.enabled or self.closed or busy:
            return
        self.state, self.note, self.live, self._client = "starting", "", None, None
        self._ready, self._stop = asyncio.Event(), asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._run(previous),
                                                            name=f"mcp {self.config.name}")

    def _transport(self, stack: contextlib.AsyncExitStack) -> sdk.Transport:
        # deferred: imported by load_sdk() in its thread; here a look-up in sys.modules
        from spark_cli.mcp import sdk
        c = self.config
        if c.url:
            headers = dict(c.headers)
            if c.bearer_token_env_var:
                token = self.environ.get(c.bearer_token_env_var)
                if not token:
                    raise RuntimeError(f"{c.bearer_token_env_var} (bearer_token_env_var) is "
                                       "not set")
                headers["Authorization"] = f"Bearer {token}"
            client = sdk.httpx2.AsyncClient(headers=headers, timeout=30.0)
            stack.push_async_callback(client.aclose)  # closed with the connection
            return sdk.streamable_http_client(c.url, http_client=client)
        self.cache.mkdir(parents=True, exist_ok=True)
        log = stack.enter_context((self.cache / f"{c.name}.log").open("w", encoding="utf-8"))
        cwd = self.root / c.cwd if c.cwd else self.root
        params = sdk.StdioServerParameters(command=c.command, args=list(c.args), env=dict(c.env),
                                           cwd=cwd)
        return sdk.stdio_client(params, errlog=log)

    async def _run(self, previous: asyncio.Task[None] | None) -> None:
        c, stop, ready = self.config, self._stop, self._ready
        started = False
        try:
            if previous is not None:
                await asyncio.wait([previous])
            await load_sdk()
            if stop.is_set():  # stopped while the SDK loaded: no process was started
                return
            # deferred: imported by load_sdk() in its thread; here a look-up in sys.modules
            from spark_cli.mcp import sdk
            with sdk.anyio.CancelScope() as scope:
                self._scope = scope
                timer = asyncio.get_running_loop().call_later(c.startup_timeout_s, scope.cancel)
                async with contextlib.AsyncExitStack() as stack:
                    client = await stack.enter_async_context(
                        sdk.Client(self._transport(stack)))
                    self.live = await self._list(client)
                    timer.cancel()
                    self._client, self.state, started = client, "ready", True
                    ready.set()
                    await asyncio.to_thread(save_tools, self.cache, c, self.key, self.live)
                    await stop.wait()
            if scope.cancelled_caught and not started and not stop.is_set():
                self._fail(f"did not start within {c.startup_timeout_s:g} s (startup_timeout_s)")
        except Exception as exc:  # any failure of a server is a note, never the session's
            if not started:
                self._fail(f"did not start: {type(exc).__name__}: {_reason(exc)}")
        finally:
            if self._stop is stop:  # not a crashed run ending after its restart began
                self._client = None
                if self.state in ("starting", "ready"):
                    self.state = "stopped"
            ready.set()

    def _fail(self, why: str) -> None:
        self.state, self.note = "failed", why + self._last_log_line()

    def _last_log_line(self) -> str:
        try:
            lines = (self.cache / f"{self.config.name}.log").read_text("utf-8", "replace")
        except OSError:
            return ""
        last = [line for line in lines.splitlines() if line.strip()][-1:]
        return f"; its stderr: {last[0].strip()[:200]}" if last else ""

    async def _list(self, client: sdk.Client) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = []
        cursor = None
        while True:
            page = await client.list_tools(cursor=cursor)
            tools += [{"name": t.name, "description": t.description or "",
                       "schema": t.input_schema} for t in page.tools]
            cursor = page.next_cursor
            if not cursor:
                return tools

    async def wait_ready(self) -> None:
        """Until a starting server is ready or has failed (``startup_timeout_s`` at most)."""
        if self._task is None:
            self.start()
        if self.state == "starting" and not self.closed:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._ready.wait(), self.config.startup_timeout_s + 1)

    async def call(self, tool: str, arguments: dict[str, Any]) -> ToolResult:
        """Call ``tool``; every failure is an error result."""
        c = self.config
        await self.wait_ready()
        client = self._client
        if client is None:
            return failure(f"MCP server {c.name} is {self.state}"
                           + (f": {self.note}" if self.note else ""))
        try:
            answer = await asyncio.wait_for(
                client.call_tool(tool, arguments, read_timeout_seconds=c.tool_timeout_s),
                c.tool_timeout_s + 2)
        except Exception as exc:  # the SDK's MCPError, a broken pipe, a bad answer
            code = _code(exc)
            if isinstance(exc, TimeoutError) or code == REQUEST_TIMEOUT:
                return failure(f"{tool} gave no answer within {c.tool_timeout_s:g} s "
                               "(tool_timeout_s)")
            if self._stop.is_set():
                return failure(f"MCP server {c.name} was stopped during the call")
            if code == CONNECTION_CLOSED or self._task is None or self._task.done():
                self.state, self.note, self._client = "crashed", "the server exited", None
                self._stop.set()
                return failure(f"MCP server {c.name} exited during the call; it is restarted "
                               "once on the next turn")
            return failure(f"{tool} failed: {_reason(exc)}")
        return to_result(answer, tool)

    async def stop(self) -> None:
        """Stop the server and wait until its process is gone."""
        task, self.closed = self._task, True
        self._stop.set()
        if self.state == "starting" and self._scope is None and task is not None:
            task.cancel()  # still loading the SDK: no process to stop
        elif self.state == "starting" and self._scope is not None:
            self._scope.cancel()  # a handshake in progress: the SDK still stops the process
        if task is not None and not (await asyncio.wait([task], timeout=STOP_WAIT_S))[0]:
            task.cancel()
            await asyncio.wait([task])
        if self.state != "failed":
            self.state = "stopped" if self.config.enabled else "off"


def _code(exc: Exception) -> int | None:
    """The JSON-RPC error code of the SDK's ``MCPError``, else None."""
    # deferred: only a failed call gets here, long after load_sdk()
    from mcp.shared.exceptions import MCPError
    return exc.code if isinstance(exc, MCPError) else None


def _reason(exc: BaseException) -> str:
    """An exception (or a group's first) as one line."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return (str(exc) or type(exc).__name__).splitlines()[0][:300]


def _size(data: str) -> str:
    size = len(data) * 3 // 4
    return f"{size / 1024:.1f} KB" if size >= 1024 else f"{size} B"


def _block(block: types.ContentBlock) -> tuple[str, bool]:
    """``(text, is_text)`` of one content block."""
    # deferred: called with the SDK's own results, so the SDK is loaded
    from spark_cli.mcp.sdk import types
    if isinstance(block, types.TextContent):
        return block.text, True
    if isinstance(block, types.ImageContent | types.AudioContent):
        return f"[{block.mime_type} {block.type}, {_size(block.data)}, not shown]", False
    if isinstance(block, types.EmbeddedResource):
        res = block.resource
        if isinstance(res, types.TextResourceContents):
            return f"[resource {res.uri}]\n{res.text}", True
        return f"[resource {res.uri}: {res.mime_type or 'binary'}, " \
               f"{_size(res.blob)}, not shown]", False
    if isinstance(block, types.ResourceLink):
        return f"[resource link {block.uri}]", False
    return f"[{block.type} content, not shown]", False


def to_result(answer: types.CallToolResult, tool: str) -> ToolResult:
    """``answer`` as a tool result: its text (else structured content as JSON), cut with a note."""
    parts = [_block(b) for b in answer.content]
    structured = answer.structured_content
    if structured is not None and not any(is_text for _, is_text in parts):
        parts.insert(0, (json.dumps(structured, ensure_ascii=False, separators=(",", ":")),
                         True))
    output = "\n".join(p for p, _ in parts) or "(no output)"
    if len(output) > MAX_OUTPUT:
        output = output[:MAX_OUTPUT] + f"\n[cut: {len(output) - MAX_OUTPUT} more characters]"
    if answer.is_error:
        first = output.strip().splitlines()[0] if output.strip() else "failed"
        return ToolResult(False, f"error from {tool}: {output}", f"error: {first[:80]}")
    lines = output.count("\n") + 1
    return ToolResult(True, output, f"{lines} line" + ("" if lines == 1 else "s"))


def failure(message: str) -> ToolResult:
    """A call that got no answer (a bad call, a dead or slow server)."""
    return ToolResult(False, f"error: {message}", f"error: {message[:80]}")
