"""CoalescingWriter: the first token shows at once, a burst costs one flush, nothing lingers."""

from __future__ import annotations

import asyncio
import io
from typing import Any

import pytest
from waiting import wait_until

from spark_cli.render.coalesce import CoalescingWriter
from spark_cli.render.jsonl import JsonLinesRenderer


class CountingStream(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.flushes = 0
        self.flushed = ""

    def flush(self) -> None:
        self.flushes += 1
        self.flushed = self.getvalue()


async def test_a_burst_of_tokens_is_one_or_two_flushes_and_nothing_lingers() -> None:
    out = CountingStream()
    writer = CoalescingWriter(out, interval=0.02)
    for n in range(500):
        writer.write(f"t{n} ")
    assert out.flushed == "t0 "  # the first token went out at once
    assert out.flushes == 1
    await wait_until(lambda: out.flushes > 1)
    assert out.flushes == 2  # the rest of the burst: one timed flush
    assert out.flushed == "".join(f"t{n} " for n in range(500))


async def test_an_event_boundary_flushes_at_once_and_cancels_the_timer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    loop = asyncio.get_running_loop()
    timers: list[asyncio.TimerHandle] = []
    call_later = loop.call_later

    def recording(delay: float, callback: Any, *args: Any) -> asyncio.TimerHandle:
        timers.append(call_later(delay, callback, *args))
        return timers[-1]

    monkeypatch.setattr(loop, "call_later", recording)
    out = CountingStream()
    writer = CoalescingWriter(out, interval=0.05)
    writer.write("a")
    writer.write("b")
    assert out.flushed == "a" and len(timers) == 1 and not timers[0].cancelled()
    writer.flush()
    assert out.flushed == "ab" and out.flushes == 2
    assert timers[0].cancelled()  # the timed flush will not come


def test_outside_an_event_loop_every_write_is_flushed() -> None:
    out = CountingStream()
    writer = CoalescingWriter(out)
    for text in ("a", "b", "c"):
        writer.write(text)
        assert out.flushed.endswith(text)


async def test_a_failed_timed_flush_is_raised_by_the_next_write() -> None:
    class Closed(CountingStream):
        def flush(self) -> None:
            self.flushes += 1
            if self.getvalue() != "a":
                raise BrokenPipeError(32, "Broken pipe")

    out = Closed()
    writer = CoalescingWriter(out, interval=0.01)
    writer.write("a")
    writer.write("b")
    await wait_until(lambda: out.flushes > 1)  # the timed flush failed
    with pytest.raises(BrokenPipeError):
        writer.write("c")


async def test_json_prose_is_coalesced_but_other_events_are_not() -> None:
    out = CountingStream()
    renderer = JsonLinesRenderer(out)
    for n in range(100):
        renderer.prose(f"p{n}")
    renderer.note("now")
    assert out.flushes == 2  # the first delta, then the note (which carried the rest)
    assert out.flushed.count("prose_delta") == 100 and out.flushed.endswith('"now"}\n')


class CountingWrites(CountingStream):
    """An unbuffered stream (PYTHONUNBUFFERED, a TTY and a newline): a write(2) per write."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)


async def test_a_burst_reaches_an_unbuffered_stream_in_one_write_per_flush() -> None:
    out = CountingWrites()
    writer = CoalescingWriter(out, interval=0.02)
    for n in range(500):
        writer.write(f"t{n}\n")
    assert out.writes == 1 and out.flushed == "t0\n"
    writer.flush()
    assert out.writes == 2 and out.flushes == 2
    assert out.getvalue() == "".join(f"t{n}\n" for n in range(500))
