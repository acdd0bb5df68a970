"""The embedded engine's WebSocket-only server: websockets' own, instead of uvicorn (whose
main loop ticks and whose shutdown waits); it refuses as the ASGI app does. Kept by the
ledger: `spark bench oneshot` shows it."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import unquote

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from spark_cli.engine.core.state import EngineState
from spark_cli.engine.serving.handshake import (
    EXTENSIONS_HEADER,
    EXTENSIONS_VALUE,
    WS_PATH,
    error_body,
    ws_refusal,
)
from spark_cli.engine.serving.ws_session import WsSession
from spark_cli.engine.wire import responses as wire
from spark_cli.engine.wire.responses import WireError

SHUTDOWN_CLOSE_CODE = 1012
"""Connections still open at stop are closed "service restart", as uvicorn closes them."""
CLOSE_TIMEOUT_S = 10.0
"""How long a close waits for the peer's close frame (uvicorn's value)."""


def _first(request: Request, name: str) -> str | None:
    values = request.headers.get_all(name)
    return values[0] if values else None


def _json(connection: ServerConnection, status: int, body: bytes) -> Response:
    response = connection.respond(status, body.decode())
    del response.headers["Content-Type"]  # respond() set text/plain
    response.headers["Content-Type"] = "application/json"
    return response


def _http_route(connection: ServerConnection, path: str) -> Response:
    """A plain HTTP request: ``/healthz``, else 404 saying where HTTP is served."""
    if path == "/healthz":
        return _json(connection, 200, b'{"status": "ok"}')
    missing = WireError(404, wire.NOT_FOUND,
                        f"no route {path[:100]!r} on this engine: started inside spark it serves "
                        f"only the WebSocket {WS_PATH}; `spark engine serve` serves HTTP too")
    return _json(connection, 404, error_body(missing))


class WebSocketOnly:
    """The handshake hooks and the per-connection handler over one :class:`EngineState`."""

    def __init__(self, state: EngineState) -> None:
        self.state = state
        self.sessions: set[WsSession] = set()

    def process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        path = unquote(request.path.partition("?")[0])
        upgrade = _first(request, "Upgrade")
        if upgrade is None or upgrade.lower() != "websocket":
            return _http_route(connection, path)
        refusal = ws_refusal(path, _first(request, "Authorization"), self.state.config.token)
        if refusal is None:
            return None  # websockets answers a malformed upgrade itself (400 / 426)
        return _json(connection, refusal.status, error_body(refusal))

    def process_response(self, connection: ServerConnection, request: Request,
                         response: Response) -> None:
        if response.status_code == 101:
            response.headers[EXTENSIONS_HEADER] = EXTENSIONS_VALUE

    async def handle(self, connection: ServerConnection) -> None:
        async def send_text(text: str) -> None:
            try:
                await connection.send(text)
            except ConnectionClosed as exc:  # the session treats a gone peer as OSError
                raise ConnectionResetError(f"the client went away ({exc})") from None

        def abort() -> bool:
            connection.transport.abort()
            return True

        async def receive() -> str | bytes | None:
            try:
                return await connection.recv()
            except ConnectionClosed:
                return None

        session = WsSession(self.state, send_text, connection.close, abort)
        await session.serve(receive, self.sessions)


@contextlib.asynccontextmanager
async def serve_websocket_only(state: EngineState, sock: socket.socket) -> AsyncIterator[Any]:
    """Serve ``/v1/responses`` on ``sock`` until the block exits, then close every session."""
    app = WebSocketOnly(state)
    server = await serve(
        app.handle, sock=sock, process_request=app.process_request,
        process_response=app.process_response, compression=None,
        max_size=state.config.ws_max_size, close_timeout=CLOSE_TIMEOUT_S,
    )
    try:
        yield server
    finally:
        for session in list(app.sessions):
            await session.stop()
        server.close(code=SHUTDOWN_CLOSE_CODE)
        await server.wait_closed()
