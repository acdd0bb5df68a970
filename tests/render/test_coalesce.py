"""CoalescingWriter: the first token shows at once, a burst costs one flush, nothing lingers."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable

import pytest

from spark_cli.render.coalesce import CoalescingWriter
from spark_cli.render.jsonl import JsonLinesRenderer


async def _until(check: Callable[[], bool]) -> None:
    """Until ``check()`` holds (the writer's timer fired), at most 5 s."""
    async with asyncio.timeout(5):
        while not check():
            await asyncio.sleep(0.005)


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
    await _until(lambda: out.flushes > 1)
    assert out.flushes == 2  # the rest of the burst: one timed flush
    assert out.flushed == "".join(f"t{n} " for n in range(500))


async def test_an_event_boundary_flushes_at_once_and_cancels_the_timer() -> None:
    out = CountingStream()
    writer = CoalescingWriter(out, interval=0.05)
    writer.write("a")
    writer.write("b")
    writer.flush()
    assert out.flushed == "ab"
    await asyncio.sleep(0.1)
    assert out.flushes == 2


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
    await _until(lambda: out.flushes > 1)  # the timed flush failed
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
