"""Latency marks of one turn, taken at the channel boundary (what `spark bench oneshot` reads).

`MarkedChannel` wraps any Channel and stamps, with ``time.perf_counter()``
(CLOCK_MONOTONIC on Linux, the clock ``time.monotonic()`` uses too, so a parent
process can compare): when the request left (the channel's own ``RequestSent``
mark), the first and the last text delta, and when the stream ended. Per event
it only compares a type and stores a float: nothing else on the hot path.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable

from spark_cli.protocol.channel import (
    Capabilities,
    Channel,
    ChannelEvent,
    RequestSent,
    TextDelta,
    TurnRequest,
)


class TurnMarks:
    """``perf_counter`` stamps of one turn (a plain class: a dataclass costs ~0.6 ms to import)."""

    __slots__ = ("first_delta_at", "last_delta_at", "request_sent_at", "stream_ended_at")

    def __init__(self) -> None:
        self.request_sent_at: float | None = None
        self.first_delta_at: float | None = None
        self.last_delta_at: float | None = None
        self.stream_ended_at: float | None = None

    def as_dict(self) -> dict[str, float | None]:
        return {"request_sent_at": self.request_sent_at, "first_delta_at": self.first_delta_at,
                "last_delta_at": self.last_delta_at, "stream_ended_at": self.stream_ended_at}


class MarkedChannel:
    """A Channel that forwards everything and records :class:`TurnMarks`."""

    def __init__(self, inner: Channel,
                 on_request_sent: Callable[[float], None] | None = None) -> None:
        self.inner = inner
        self.marks = TurnMarks()
        self._on_request_sent = on_request_sent

    @property
    def capabilities(self) -> Capabilities:
        return self.inner.capabilities

    async def stream(self, request: TurnRequest) -> AsyncIterator[ChannelEvent]:
        marks = self.marks
        clock = time.perf_counter
        try:
            async for event in self.inner.stream(request):
                if type(event) is TextDelta:
                    now = clock()
                    if marks.first_delta_at is None:
                        marks.first_delta_at = now
                    marks.last_delta_at = now
                elif type(event) is RequestSent:
                    marks.request_sent_at = event.at
                    if self._on_request_sent is not None:
                        self._on_request_sent(event.at)
                yield event
        finally:
            marks.stream_ended_at = clock()

    async def steer(self, text: str) -> None:
        await self.inner.steer(text)

    async def stop(self) -> None:
        await self.inner.stop()

    async def warm(self) -> None:
        await self.inner.warm()

    async def aclose(self) -> None:
        await self.inner.aclose()
