"""The engine's raw ASGI application: WebSocket ``/v1/responses`` and plain HTTP, one port.

The handshake is authenticated (401 JSON before the upgrade on a wrong or
missing bearer token) and its response advertises the engine's protocol
extensions in :data:`EXTENSIONS_HEADER`.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from spark_cli.engine.core.state import EngineState
from spark_cli.engine.serving import asgi_io, http_routes
from spark_cli.engine.serving.ws_session import WsSession
from spark_cli.protocol import responses as wire

EXTENSIONS_HEADER = "x-spark-engine-extensions"
EXTENSIONS_VALUE = ", ".join(wire.EXTENSIONS)
WS_PATH = "/v1/responses"


class EngineApp:
    def __init__(self, state: EngineState) -> None:
        self.state = state
        self.sessions: set[WsSession] = set()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        kind = scope["type"]
        if kind == "http":
            await http_routes.handle(self.state, scope, receive, send)
        elif kind == "websocket":
            await self._websocket(scope, receive, send)

    async def _deny(self, send: Any, status: int, error: wire.WireError) -> None:
        body = json.dumps({"error": error.body()}).encode()
        await send({"type": "websocket.http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json")]})
        await send({"type": "websocket.http.response.body", "body": body})

    async def _websocket(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        message = await receive()
        if message["type"] != "websocket.connect":
            return
        if scope["path"] != WS_PATH:
            missing = wire.WireError(404, wire.NOT_FOUND,
                                     f"no WebSocket at {scope['path'][:100]!r}")
            await self._deny(send, 404, missing)
            return
        denied = asgi_io.auth_error(scope, self.state.config.token)
        if denied is not None:
            await self._deny(send, 401, denied)
            return
        await send({"type": "websocket.accept",
                    "headers": [(EXTENSIONS_HEADER.encode(), EXTENSIONS_VALUE.encode())]})

        async def send_text(text: str) -> None:
            await send({"type": "websocket.send", "text": text})

        async def close(code: int, reason: str) -> None:
            await send({"type": "websocket.close", "code": code, "reason": reason})

        session = WsSession(self.state, send_text, close,
                            lambda: asgi_io.abort_connection(send))
        self.sessions.add(session)
        session.start()
        try:
            while not session.closed.is_set():
                message = await receive()
                if message["type"] == "websocket.disconnect":
                    break
                frame = message.get("text")
                if frame is None:
                    frame = message.get("bytes") or b""
                await session.handle(frame)
        except OSError:
            pass
        finally:
            self.sessions.discard(session)
            with contextlib.suppress(Exception):
                await session.stop()
