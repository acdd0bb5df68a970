"""One prompt's updates, sent in order from one task, prose joined at a reader's pace.

The first text goes out at once; after it, prose that arrives within ``FLUSH_S`` of the last
prose sent joins one ``agent_message_chunk`` (the pace the TUI paints text scrolling past
reading speed), so a fast model costs the editor a JSON-RPC message per frame, not per
delta: `spark bench acp` shows what that keeps the CPU to. Every other update flushes the
prose before it and keeps its place.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from acp import helpers

FLUSH_S = 1 / 15
"""At most one prose message per this many seconds after the first (each costs the SDK's
validation, serialising and a write)."""


class Outbox:
    """Queues a prompt's updates; :meth:`close` sends the rest and waits for them."""

    def __init__(self, send: Callable[[Any], Awaitable[None]]) -> None:
        self._send = send
        self._items: list[Any] = []  # updates in order; a list holds prose not sent yet
        self._wake = asyncio.Event()
        self._last = float("-inf")  # loop time of the last prose sent
        self._task = asyncio.ensure_future(self._run())

    def prose(self, text: str) -> None:
        if self._items and isinstance(self._items[-1], list):
            self._items[-1].append(text)
        else:
            self._items.append([text])
        self._wake.set()

    def update(self, update: Any) -> None:
        self._items.append(update)
        self._wake.set()

    async def close(self) -> None:
        self._items.append(None)
        self._wake.set()
        await self._task

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._items:
                if isinstance(self._items[0], list) and len(self._items) == 1:
                    wait = self._last + FLUSH_S - loop.time()
                    if wait > 0:  # more prose may join it meanwhile
                        await asyncio.sleep(wait)
                item = self._items.pop(0)
                if item is None:
                    return
                if isinstance(item, list):
                    self._last = loop.time()
                    item = helpers.update_agent_message_text("".join(item))
                await self._send(item)
