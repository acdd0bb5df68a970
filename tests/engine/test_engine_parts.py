"""Value tests for the engine's pure parts: pieces, safe points, the wafer, the bucket, faults."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from unittest.mock import patch

import pytest
from hypothesis import given
from hypothesis import strategies as st
from waiting import wait_until

from spark_cli.engine.core import pieces as pieces_module
from spark_cli.engine.core.config import EngineConfig, FaultConfig
from spark_cli.engine.core.faults import DROP, MALFORMED, STALL, FaultPlan, RejectCoin
from spark_cli.engine.core.output_items import SafePoints
from spark_cli.engine.core.pieces import PieceSource, count_pieces
from spark_cli.engine.core.state import TokenBucket, Wafer
from spark_cli.engine.wire.responses import WireError
from spark_cli.protocol.tokens import count_tokens, split_pieces


def _chunks(text: str, cuts: list[int]) -> Iterator[str]:
    last = 0
    for cut in sorted({c % (len(text) + 1) for c in cuts}):
        yield text[last:cut]
        last = cut
    yield text[last:]


async def _all_pieces(source: PieceSource, size: int) -> list[str]:
    pieces: list[str] = []
    while await source.has_more():
        pieces += await source.take(size)
    return pieces


@given(st.text(alphabet="ab \n(){}_=:.,'\t1", max_size=200), st.lists(st.integers(0, 400)))
def test_pieces_do_not_depend_on_chunking(text: str, cuts: list[int]) -> None:
    pieces = asyncio.run(_all_pieces(PieceSource(_chunks(text, cuts)), 3))
    assert "".join(pieces) == text
    assert len(pieces) == count_tokens(text)
    assert pieces == split_pieces(text)


@given(st.text(alphabet="ab \n(_.", max_size=300), st.integers(1, 40))
def test_long_chunks_are_cut_in_slices_without_changing_pieces(text: str, size: int) -> None:
    with patch.object(pieces_module, "SLICE", size):
        pieces = asyncio.run(_all_pieces(PieceSource(iter([text])), 7))
        assert count_pieces([text, text]) == 2 * count_tokens(text)
    assert pieces == split_pieces(text)


async def test_take_stops_pulling_an_endless_brain() -> None:
    def forever() -> Iterator[str]:
        while True:
            yield "word "

    source = PieceSource(forever())
    assert len(await source.take(1000)) == 1000
    assert await source.has_more()


async def test_what_is_left_is_known_once_the_answer_ends_within_reach() -> None:
    def endless() -> Iterator[str]:
        while True:
            yield "word "

    source = PieceSource(endless())
    await source.take(3)
    assert await source.left_within(50) is None  # it goes on
    finished = PieceSource(iter(["one two ", "six ", "ten"]))
    assert await finished.left_within(2) is None  # two or more left: not known to end
    assert await finished.take(1) == ["one"]
    assert await finished.left_within(4) == 3  # pulled ahead to the end
    assert await finished.left_within(3) is None  # not fewer than 3
    assert await finished.take(2) == [" two", " six"]
    assert await finished.left_within(2) == 1
    assert await finished.take(5) == [" ten"]
    assert await finished.left_within(1) == 0


async def test_offloaded_pulls_run_in_another_thread() -> None:
    seen: list[int] = []

    def answer() -> Iterator[str]:
        seen.append(threading.get_ident())
        yield "def f():\n    return 1\n"

    loop = asyncio.get_running_loop()
    with ThreadPoolExecutor(1) as pool:
        source = PieceSource(answer(), lambda work: loop.run_in_executor(pool, work))
        source.prefetch()
        assert "".join(await _all_pieces(source, 2)) == "def f():\n    return 1\n"
    assert seen and seen[0] != threading.get_ident()


def test_safe_points_skip_fences_and_blocks() -> None:
    safe = SafePoints()
    assert safe.feed("intro\n") is None
    assert safe.outside and safe.at_line_start
    rest = "```python\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n```\nafter\n"
    cut = safe.feed(rest, want_cut=True)
    assert cut is not None
    assert rest[:cut].endswith(">>>>>>> REPLACE\n```\n")


def test_safe_point_in_an_apply_patch_envelope() -> None:
    safe = SafePoints()
    safe.feed("*** Begin Patch\n*** Update File: a.py\n")
    assert not safe.outside
    assert safe.feed("@@\n-x\n+y\n", want_cut=True) is None
    assert safe.feed("*** End Patch\nnext", want_cut=True) == len("*** End Patch\n")


def test_safe_point_tracks_lines_across_frames() -> None:
    safe = SafePoints()
    safe.feed("``")
    assert not safe.at_line_start
    safe.feed("`py\ncode")
    assert not safe.outside
    assert safe.feed("\n``", want_cut=True) is None
    assert safe.feed("`\n", want_cut=True) == 2


async def test_wafer_queue_positions_and_cancel() -> None:
    wafer = Wafer(max_streams=1, queue=2)
    seen: dict[str, list[int]] = {"b": [], "c": []}
    gate = asyncio.Event()

    async def hold(name: str) -> None:
        async def report(position: int) -> None:
            seen[name].append(position)

        async with wafer.slot(report):
            await gate.wait()

    async def first(position: int) -> None:
        raise AssertionError("the first stream never waits")

    async with wafer.slot(first):
        b = asyncio.create_task(hold("b"))
        c = asyncio.create_task(hold("c"))
        await wait_until(lambda: wafer.waiting == 2, 5)
        with pytest.raises(WireError) as full:
            wafer.admit()
        assert full.value.status == 429
        b.cancel()
        await wait_until(lambda: len(seen["c"]) == 2, 5)
        assert seen == {"b": [1], "c": [2, 1]}
    gate.set()
    await asyncio.wait_for(c, 5)
    assert wafer.active == 0 and wafer.waiting == 0


def test_token_bucket_refills_over_time() -> None:
    now = [0.0]
    bucket = TokenBucket(60, clock=lambda: now[0])
    assert bucket.reserve(60) == 60
    with pytest.raises(WireError) as refused:
        bucket.reserve(1)
    assert refused.value.headers["x-ratelimit-limit-tokens"] == "60"
    assert refused.value.headers["retry-after-ms"] == "1000"
    now[0] = 1.0  # one token per second
    assert bucket.remaining == 1
    bucket.reserve(1)


def test_token_bucket_admits_only_what_fits_and_refunds_the_rest() -> None:
    now = [0.0]
    bucket = TokenBucket(600, clock=lambda: now[0])
    reserved = bucket.reserve(500)  # input + max_output_tokens
    with pytest.raises(WireError) as refused:
        bucket.reserve(200)  # 100 left: does not fit, though the balance is positive
    assert refused.value.headers["x-ratelimit-remaining-tokens"] == "100"
    assert refused.value.headers["retry-after-ms"] == "10000"  # 100 more at 10 tokens/s
    bucket.settle(reserved, 120)  # the answer was short: 380 come back
    assert bucket.remaining == 480
    bucket.reserve(200)
    with pytest.raises(WireError) as too_big:
        bucket.reserve(601)
    assert "too large" in too_big.value.message and "retry-after-ms" not in too_big.value.headers


def test_fault_plan_fires_each_once_in_order() -> None:
    plan = FaultPlan(FaultConfig(drop_after_tokens=9, stall_after_tokens=3, stall_ms=5,
                                 malformed_after_tokens=3))
    assert plan.next_at() == 3
    assert sorted(plan.due(3)) == [MALFORMED, STALL]
    assert plan.due(5) == []
    assert plan.due(9) == [DROP]
    assert plan.due(100) == []


def test_reject_coin_extremes() -> None:
    RejectCoin(0.0, 1).toss()
    with pytest.raises(WireError):
        RejectCoin(1.0, 1).toss()


@pytest.mark.parametrize("bad", [{"tps": 0}, {"max_streams": 0}, {"queue": -1}, {"tpm": 0},
                                 {"ttft_ms": -1}, {"max_connection_age_s": 0}])
def test_config_rejects_nonsense(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        EngineConfig(**bad)  # type: ignore[arg-type]
