"""The attacks of `spark bench abuse`, each against a running engine on loopback, each counted
in a :class:`Tally`: bad frames (the socket must still answer a real turn), disconnects in
every way a client can leave, hundreds of connections at once."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from spark_cli.bench.abuse.abuse_frames import HttpCase, http_error_in_shape, ws_reply_in_shape

TERMINAL = ("response.completed", "response.incomplete", "response.failed")
FINISHED = ("response.completed", "response.incomplete")
"""A real turn of 16 tokens at most ends one of these ways (``max_output_tokens``)."""
REPLY_TIMEOUT_S = 10.0


@dataclass
class Tally:
    """How many cases of one family were tried and answered as documented, and the misses."""

    tried: int = 0
    answered: int = 0
    misses: list[str] = field(default_factory=list)

    def note(self, ok: bool, what: str) -> None:
        self.tried += 1
        if ok:
            self.answered += 1
        elif len(self.misses) < 5:
            self.misses.append(what[:160])


def _ws(ws_url: str, token: str, **kwargs: Any) -> Any:
    return connect(ws_url, additional_headers={"Authorization": f"Bearer {token}"},
                   compression=None, proxy=None, open_timeout=REPLY_TIMEOUT_S, **kwargs)


async def _reply(ws: ClientConnection) -> dict[str, Any]:
    async with asyncio.timeout(REPLY_TIMEOUT_S):
        event = json.loads(await ws.recv())
    return event if isinstance(event, dict) else {}


async def _one_turn(ws: ClientConnection, text: str = "hi") -> str:
    """A real request on ``ws``: the type of its terminal event (or of its error)."""
    await ws.send(json.dumps({"type": "response.create", "model": "spark-rules",
                              "input": text, "max_output_tokens": 16}))
    while True:
        event = await _reply(ws)
        if event.get("type") in (*TERMINAL, "error"):
            return str(event.get("type"))


async def bad_frames(ws_url: str, token: str, frames: list[str | bytes],
                     per_socket: int) -> Tally:
    """Each frame gets an error in shape; each socket then answers a real turn (one more)."""
    tally = Tally()
    for start in range(0, len(frames), per_socket):
        async with _ws(ws_url, token, max_size=None) as ws:
            for frame in frames[start:start + per_socket]:
                try:
                    await ws.send(frame)
                    reply = await _reply(ws)
                except (ConnectionClosed, TimeoutError, ValueError) as exc:
                    tally.note(False, f"{frame[:60]!r}: {exc!r}")
                    break
                tally.note(ws_reply_in_shape(reply), f"{frame[:60]!r} -> {reply}")
            try:
                ending = await _one_turn(ws)
            except (ConnectionClosed, TimeoutError) as exc:
                ending = repr(exc)
            tally.note(ending in FINISHED, f"socket after bad frames: {ending}")
    return tally


async def oversized_frame(ws_url: str, token: str, size: int) -> Tally:
    """A frame over the engine's limit: closed with 1009, as documented."""
    tally = Tally()
    async with _ws(ws_url, token, max_size=None) as ws:
        with contextlib.suppress(ConnectionClosed, TimeoutError):
            await ws.send("x" * size)
            await _reply(ws)
        code = ws.close_code
    tally.note(code == 1009, f"oversized frame: close code {code}")
    return tally


async def _raw(http_url: str, data: bytes, *, read: bool = False) -> None:
    """Connect, send ``data`` (``read``: wait a moment for an answer), abort."""
    host, port = http_url.removeprefix("http://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(data)
        await writer.drain()
        if read:
            with contextlib.suppress(TimeoutError, OSError):
                async with asyncio.timeout(0.05):
                    await reader.read(1)
    finally:
        writer.transport.abort()


async def _ws_left(ws_url: str, token: str, abort: bool) -> None:
    """A WebSocket turn left mid-stream (``abort``: the socket dropped) or right after asking."""
    async with _ws(ws_url, token) as ws:
        await ws.send(json.dumps({"type": "response.create", "model": "spark-lorem",
                                  "input": "go", "max_output_tokens": 100_000}))
        while abort and (await _reply(ws)).get("type") != "response.output_text.delta":
            pass
        if abort:
            ws.transport.abort()


async def _sse_abort(http_url: str, token: str) -> None:
    body = {"model": "spark-lorem", "stream": True, "max_tokens": 100_000,
            "messages": [{"role": "user", "content": "go"}]}
    async with httpx.AsyncClient(base_url=http_url, trust_env=False, timeout=10,
                                 headers={"Authorization": f"Bearer {token}"}) as http, \
            http.stream("POST", "/v1/chat/completions", json=body) as response:
        async for _ in response.aiter_bytes():
            break


DISCONNECTS: dict[str, Callable[[str, str, str], Awaitable[None]]] = {
    "ws abort mid-stream": lambda ws, http, token: _ws_left(ws, token, abort=True),
    "ws close after create": lambda ws, http, token: _ws_left(ws, token, abort=False),
    "half handshake": lambda ws, http, token: _raw(
        http, b"GET /v1/responses HTTP/1.1\r\nhost: x\r\nupgrade: websocket\r\n"),
    "sse abort": lambda ws, http, token: _sse_abort(http, token),
    "half body": lambda ws, http, token: _raw(
        http, b"POST /v1/responses HTTP/1.1\r\nhost: x\r\nauthorization: Bearer "
        + token.encode() + b"\r\ncontent-type: application/json\r\n"
        b"content-length: 1000\r\n\r\n{\"model\": "),
    "half headers": lambda ws, http, token: _raw(
        http, b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-le"),
    "connect and go": lambda ws, http, token: _raw(http, b""),
    "not HTTP": lambda ws, http, token: _raw(
        http, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 64, read=True),
}


async def disconnects(ws_url: str, http_url: str, token: str, count: int) -> Tally:
    """``count`` abrupt departures, cycling through the kinds, ten at a time."""
    tally = Tally()
    kinds = list(DISCONNECTS)
    for start in range(0, count, 10):
        batch = [kinds[i % len(kinds)] for i in range(start, min(count, start + 10))]
        results = await asyncio.gather(*(DISCONNECTS[kind](ws_url, http_url, token)
                                         for kind in batch), return_exceptions=True)
        for kind, result in zip(batch, results, strict=True):
            tally.note(not isinstance(result, Exception),
                       f"{kind}: {result!r}")  # the client side must not fail
    return tally


async def concurrent_sockets(ws_url: str, token: str, count: int) -> Tally:
    """``count`` connections at once, one real turn each."""
    tally = Tally()

    async def one() -> str:
        async with _ws(ws_url, token) as ws:
            return await _one_turn(ws, "concurrent")

    results = await asyncio.gather(*(one() for _ in range(count)), return_exceptions=True)
    for result in results:
        tally.note(result in FINISHED, f"concurrent socket: {result!r}")
    return tally


async def concurrent_http(http_url: str, token: str, count: int) -> Tally:
    """``count`` streamed Chat requests at once, each to ``data: [DONE]``."""
    tally = Tally()
    body = {"model": "spark-rules", "stream": True, "max_tokens": 16,
            "messages": [{"role": "user", "content": "concurrent"}]}
    limits = httpx.Limits(max_connections=count)
    async with httpx.AsyncClient(base_url=http_url, trust_env=False, timeout=30, limits=limits,
                                 headers={"Authorization": f"Bearer {token}"}) as http:
        async def one() -> bool:
            async with http.stream("POST", "/v1/chat/completions", json=body) as response:
                text = (await response.aread()).decode()
            return response.status_code == 200 and text.rstrip().endswith("data: [DONE]")

        results = await asyncio.gather(*(one() for _ in range(count)), return_exceptions=True)
    for result in results:
        tally.note(result is True, f"concurrent HTTP stream: {result!r}")
    return tally


async def bad_requests(http_url: str, token: str, cases: list[HttpCase]) -> Tally:
    """Each case: its status and OpenAI's JSON error body."""
    tally = Tally()
    async with httpx.AsyncClient(base_url=http_url, trust_env=False, timeout=30) as http:
        for case in cases:
            headers = dict(case.headers)
            if case.auth:
                headers["authorization"] = f"Bearer {token}"
            try:
                response = await http.request(case.method, case.path, content=case.body,
                                              headers=headers)
                body = response.json()
            except (httpx.HTTPError, ValueError) as exc:
                tally.note(False, f"{case.name} {case.path}: {exc!r}")
                continue
            tally.note(response.status_code == case.status and http_error_in_shape(body),
                       f"{case.name} {case.path}: {response.status_code} {body}")
    return tally
