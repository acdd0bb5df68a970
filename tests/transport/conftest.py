"""Scripted WebSocket Responses servers for transport tests (exact frames, counted handshakes)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from waiting import wait_until
from websockets.asyncio.server import ServerConnection, serve
from websockets.http11 import Request, Response


@dataclass
class Scripted:
    url: str = ""
    handshakes: int = 0
    received: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    """(connection number, client frame) in arrival order."""
    auth: list[str | None] = field(default_factory=list)
    closed: list[int] = field(default_factory=list)

    def creates(self) -> list[tuple[int, dict[str, Any]]]:
        return [(n, f) for n, f in self.received if f.get("type") == "response.create"]


Behaviour = Callable[[ServerConnection, int, dict[str, Any], Scripted], Awaitable[None]]


@pytest.fixture
def ws_server() -> Callable[..., contextlib.AbstractAsyncContextManager[Scripted]]:
    @contextlib.asynccontextmanager
    async def start(
        behaviour: Behaviour,
        *,
        extensions: str | None = None,
        reject: int | None = None,
        reject_headers: dict[str, str] | None = None,
        reject_body: str = "",
    ) -> AsyncIterator[Scripted]:
        state = Scripted()

        def process_request(conn: ServerConnection, request: Request) -> Response | None:
            state.auth.append(request.headers.get("Authorization"))
            if reject is not None:
                response = conn.respond(reject, reject_body)
                for key, value in (reject_headers or {}).items():
                    response.headers[key] = value
                return response
            return None

        def process_response(
            conn: ServerConnection, request: Request, response: Response
        ) -> Response:
            if extensions is not None:
                response.headers["x-spark-engine-extensions"] = extensions
            return response

        async def handler(ws: ServerConnection) -> None:
            state.handshakes += 1
            number = state.handshakes
            try:
                async for raw in ws:
                    frame = json.loads(raw)
                    state.received.append((number, frame))
                    await behaviour(ws, number, frame, state)
            except Exception:
                pass
            finally:
                state.closed.append(number)

        async with serve(
            handler,
            "127.0.0.1",
            0,
            compression=None,
            process_request=process_request,
            process_response=process_response,
        ) as server:
            port = server.sockets[0].getsockname()[1]
            state.url = f"ws://127.0.0.1:{port}/v1/responses"
            async with asyncio.timeout(20):
                yield state
            server.close(close_connections=True)

    return start


ASGIApp = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


@pytest.fixture
def http_server() -> Callable[[ASGIApp], contextlib.AbstractAsyncContextManager[str]]:
    """Serve an ASGI app with uvicorn on 127.0.0.1:0; yields its base URL (``.../v1``)."""
    import uvicorn

    @contextlib.asynccontextmanager
    async def start(app: ASGIApp) -> AsyncIterator[str]:
        config = uvicorn.Config(
            app,
            host="127.0.0.1",
            port=0,
            log_level="error",
            lifespan="off",
            timeout_graceful_shutdown=0.1,  # type: ignore[arg-type]
        )
        server = uvicorn.Server(config)
        task = asyncio.create_task(server.serve())
        try:
            await wait_until(lambda: server.started, 10)
            port = server.servers[0].sockets[0].getsockname()[1]
            async with asyncio.timeout(20):
                yield f"http://127.0.0.1:{port}/v1"
        finally:
            server.should_exit = True
            await task

    return start
