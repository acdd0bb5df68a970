"""The engine's raw ASGI application: WebSocket ``/v1/responses`` and plain HTTP, one port.

The handshake is authenticated (401 JSON before the upgrade on a wrong or
missing bearer token) and its response advertises the engine's protocol
extensions in :data:`EXTENSIONS_HEADER`.
"""

from __future__ import annotations

import contextlib
from typing import Any

from spark_cli.engine.core.state import EngineState
from spark_cli.engine.serving import asgi_io, http_routes
from spark_cli.engine.serving.handshake import (
    EXTENSIONS_HEADER,
    EXTENSIONS_VALUE,
    error_body,
    ws_refusal,
)
from spark_cli.engine.serving.ws_session import WsSession


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

    async def _websocket(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        message = await receive()
        if message["type"] != "websocket.connect":
            return
        refusal = ws_refusal(scope["path"], asgi_io.header(scope, b"authorization"),
                             self.state.config.token)
        if refusal is not None:
            await send({"type": "websocket.http.response.start", "status": refusal.status,
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "websocket.http.response.body", "body": error_body(refusal)})
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
