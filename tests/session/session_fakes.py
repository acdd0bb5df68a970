"""A scripted Channel for session tests: yields given events, can pause mid-stream."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from spark_cli.protocol.channel import (
    Capabilities,
    ChannelError,
    RequestSent,
    TextDelta,
    TurnFinished,
    TurnRequest,
    UsageReported,
)


class ScriptedChannel:
    """Streams ``chunks`` as TextDeltas, then ``finish``; records every request.

    ``on_chunk(i)`` runs (awaited if a coroutine) before chunk ``i`` is yielded:
    tests use it to look at the disk while the stream is still open.
    ``fail_after`` raises ``fail`` after that many chunks. ``stop()`` ends the
    stream with ``TurnFinished("cancelled")`` at the next chunk.
    """

    def __init__(self, chunks: Sequence[str], *, finish: TurnFinished | None = None,
                 usage: UsageReported | None = None, fail_after: int | None = None,
                 fail: ChannelError | None = None,
                 on_chunk: Callable[[int], Any] | None = None,
                 steer: bool = False) -> None:
        self.chunks = list(chunks)
        self.finish = finish or TurnFinished("completed", None, "resp_1")
        self.usage = usage
        self.fail_after = fail_after
        self.fail = fail or ChannelError("connection", "the connection dropped")
        self.on_chunk = on_chunk
        self.requests: list[TurnRequest] = []
        self.stopped = asyncio.Event()
        self.steered: list[str] = []
        self._caps = Capabilities(steer=steer)

    @property
    def capabilities(self) -> Capabilities:
        return self._caps

    async def stream(self, request: TurnRequest) -> AsyncIterator[Any]:
        self.requests.append(request)
        yield RequestSent(time.perf_counter())
        for index, chunk in enumerate(self.chunks):
            if self.fail_after is not None and index == self.fail_after:
                raise self.fail
            if self.on_chunk is not None:
                result = self.on_chunk(index)
                if asyncio.iscoroutine(result):
                    await result
            if self.stopped.is_set():
                yield TurnFinished("cancelled", None, "resp_1")
                return
            await asyncio.sleep(0)  # yields to the loop, as a socket read does
            yield TextDelta(chunk)
        if self.usage is not None:
            yield self.usage
        yield self.finish

    async def steer(self, text: str) -> None:
        self.steered.append(text)

    async def stop(self) -> None:
        self.stopped.set()

    async def warm(self, request: TurnRequest | None = None) -> None:
        return None

    async def aclose(self) -> None:
        return None


class ResponsesChannel:
    """One scripted response per request: ``responses[i]`` is the events of the i-th (text as
    ``str``, anything else yielded as is), then ``TurnFinished("completed")`` unless the
    script ends with its own. Every request is recorded; ``stop()`` cancels the running one.

    A script may be a callable ``(request) -> list``: it sees what was sent (the tool outputs
    too). Past the last script, the last one repeats (a model that loops)."""

    def __init__(self, responses: Sequence[Any], *, steer: bool = False) -> None:
        self.responses = list(responses)
        self.requests: list[TurnRequest] = []
        self.stopped = asyncio.Event()
        self.steered: list[str] = []
        self._caps = Capabilities(steer=steer)

    @property
    def capabilities(self) -> Capabilities:
        return self._caps

    async def stream(self, request: TurnRequest) -> AsyncIterator[Any]:
        index = len(self.requests)
        self.requests.append(request)
        self.stopped.clear()
        script = self.responses[min(index, len(self.responses) - 1)]
        events = script(request) if callable(script) else script
        yield RequestSent(time.perf_counter())
        for event in events:
            await asyncio.sleep(0)  # yields to the loop, as a socket read does
            if self.stopped.is_set():
                yield TurnFinished("cancelled", None, f"resp_{index}")
                return
            yield TextDelta(event) if isinstance(event, str) else event
        if not events or not isinstance(events[-1], TurnFinished):
            yield TurnFinished("completed", None, f"resp_{index}")

    async def steer(self, text: str) -> None:
        self.steered.append(text)

    async def stop(self) -> None:
        self.stopped.set()

    async def warm(self, request: TurnRequest | None = None) -> None:
        return None

    async def aclose(self) -> None:
        return None
