"""Test helpers for the engine tests: a raw WebSocket client and small brains."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

BOTH_SERVERS = pytest.mark.both_servers
"""Runs a WebSocket test (one using the ``engine`` fixtures) on both of ``run_engine``'s
servers, uvicorn and websockets: they must behave alike (``tests/conftest.py``)."""
TERMINAL = {"response.completed", "response.incomplete", "response.failed"}
TOKEN = "test-token"


def ws_connect(engine: Any, token: str | None = TOKEN, **kwargs: Any) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return connect(engine.ws_url, additional_headers=headers, compression=None, proxy=None,
                   open_timeout=5, **kwargs)


async def send(ws: ClientConnection, **event: Any) -> None:
    await ws.send(json.dumps(event))


async def recv(ws: ClientConnection, timeout: float = 5.0) -> dict[str, Any]:
    async with asyncio.timeout(timeout):
        return json.loads(await ws.recv())


async def until(ws: ClientConnection, *types: str, timeout: float = 10.0) -> list[dict[str, Any]]:
    """Events up to and including the first whose type is in ``types`` (default: terminal/error)."""
    wanted = set(types) or (TERMINAL | {"error"})
    events: list[dict[str, Any]] = []
    async with asyncio.timeout(timeout):
        while True:
            event = json.loads(await ws.recv())
            events.append(event)
            if event["type"] in wanted:
                return events


def text_of(events: list[dict[str, Any]]) -> str:
    return "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")


class EchoBrain:
    """Answers with its prompt; ``lines:N`` gives N numbered lines; ``forever`` never ends;
    ``boom`` raises; the conversation length is appended for ``history``."""

    name = "echo"

    def answer(self, request: Any) -> Iterator[str]:
        prompt = request.prompt
        if prompt.startswith("lines:"):
            count = int(prompt.split(":", 1)[1])
            for i in range(count):
                yield f"line {i} of the answer\n"
        elif prompt == "forever":
            while True:
                yield "word word word word\n"
        elif prompt == "boom":
            yield "start "
            raise RuntimeError("kaput")
        elif prompt == "history":
            yield " | ".join(f"{t.role}:{t.text}" for t in request.conversation)
        else:
            yield prompt


def echo_brains(model: str) -> EchoBrain:
    return EchoBrain()
