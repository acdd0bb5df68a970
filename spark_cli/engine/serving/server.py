"""Running the engine in-process on a socket it binds itself: uvicorn (HTTP and WebSocket,
`spark engine serve`) or, with ``http=False``, :mod:`ws_server` (``spark edit``, the TUI)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import socket
from collections.abc import AsyncIterator, Iterator
from dataclasses import field
from typing import Any

from spark_cli.engine.brains.registry import RegistryBrains
from spark_cli.engine.core.config import EngineConfig
from spark_cli.engine.core.state import BrainFactory, EngineState
from spark_cli.engine.serving.handshake import WS_PATH
from spark_cli.record import record

START_TIMEOUT_S = 10.0
TICK_S = 0.1
"""uvicorn's main-loop tick (its once-a-second chores count ticks); a stop wakes it at once."""


def url_host(host: str) -> str:
    """``host`` as a URL names it (a wildcard address: its loopback)."""
    if host in ("0.0.0.0", ""):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


def bind_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` (raises ``OSError``: address in use, …)."""
    # an ASCII host goes as bytes: a str is IDNA-encoded first (importing encodings.idna)
    name: str | bytes | None = (host.encode() if host.isascii() else host) if host else None
    infos = socket.getaddrinfo(name, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    return sock


@record
class RunningEngine:
    """A running engine's addresses and token, and its state (counters, warming brains)."""

    url: str
    """``http://HOST:PORT`` (the OpenAI base URL is ``url + "/v1"``)."""
    ws_url: str
    token: str | None
    state: EngineState | None = field(default=None, repr=False)


@functools.cache
def _embedded_server_class() -> type[Any]:
    """uvicorn's ``Server`` without its signal handlers (the embedder owns Ctrl-C)."""
    import uvicorn  # deferred: bundled tiny edit

    class EmbeddedServer(uvicorn.Server):
        """Also wakes its main loop at once when told to stop."""

        stopping: asyncio.Event | None = None

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

        def stop(self) -> None:
            self.should_exit = True
            if self.stopping is not None:
                self.stopping.set()

        async def main_loop(self) -> None:
            stopping = self.stopping = asyncio.Event()
            if self.should_exit:
                stopping.set()
            counter = 0
            while not await self.on_tick(counter):
                counter = (counter + 1) % 864_000
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(TICK_S):
                        await stopping.wait()

    return EmbeddedServer


@contextlib.asynccontextmanager
async def _serve_uvicorn(state: EngineState, sock: socket.socket) -> AsyncIterator[None]:
    """uvicorn serving :class:`EngineApp` on ``sock`` while the block runs."""
    import uvicorn  # deferred: bundled tiny edit

    from spark_cli.engine.serving.http_routes import EngineApp  # deferred: bundled tiny edit

    config = state.config
    app = EngineApp(state)
    uv_config = uvicorn.Config(
        app, host=config.host, port=config.port, ws="websockets-sansio", http="h11",
        lifespan="off", log_level="warning", ws_max_size=config.ws_max_size,
        ws_per_message_deflate=False, access_log=False, timeout_graceful_shutdown=1,
    )
    server = _embedded_server_class()(uv_config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        async with asyncio.timeout(START_TIMEOUT_S):
            while not server.started:
                if task.done():
                    task.result()  # re-raise the bind error
                    raise OSError(f"the engine could not start on {config.host}:{config.port}")
                await asyncio.sleep(0.005)
    except BaseException:
        server.stop()
        with contextlib.suppress(BaseException):
            await task
        raise
    try:
        yield
    finally:
        server.stop()
        for session in list(app.sessions):
            await session.stop()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@contextlib.asynccontextmanager
async def run_engine(
    config: EngineConfig, *, brains: BrainFactory | None = None, http: bool = True,
) -> AsyncIterator[RunningEngine]:
    """Serve until the block exits (``ValueError``: a bad brain; ``OSError``: the port)."""
    if brains is None:
        brains = RegistryBrains(config.brain)  # a bad --brain spec fails here (ValueError)
    sock = bind_socket(config.host, config.port)
    state = EngineState(config, brains)
    try:
        if http:
            serving: contextlib.AbstractAsyncContextManager[Any] = _serve_uvicorn(state, sock)
        else:
            # deferred: bundled tiny edit
            from spark_cli.engine.serving.ws_server import serve_websocket_only

            serving = serve_websocket_only(state, sock)
        async with serving:
            port = sock.getsockname()[1]
            host = url_host(config.host)
            yield RunningEngine(
                url=f"http://{host}:{port}", ws_url=f"ws://{host}:{port}{WS_PATH}",
                token=config.token, state=state,
            )
    finally:
        sock.close()
        state.close()
