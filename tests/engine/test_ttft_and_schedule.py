"""The first token is due at t0 + TTFT exactly (not a frame later); the stream keeps its
schedule. Lower bounds are strict; upper bounds only catch a lost frame (generously)."""

from __future__ import annotations

import time
from typing import Any

from engine_client import BOTH_SERVERS, echo_brains, send, until, ws_connect

from spark_cli.protocol.tokens import count_tokens

pytestmark = BOTH_SERVERS


async def _first_and_last(engine: Any, prompt: str) -> tuple[float, float, int]:
    """Seconds from send to the first and to the last delta, and the tokens."""
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="warm-up")
        await until(ws)
        sent = time.perf_counter()
        await send(ws, type="response.create", model="m", input=prompt)
        stamps: list[float] = []
        while True:
            events = await until(ws, "response.output_text.delta", "response.completed")
            if events[-1]["type"] == "response.completed":
                tokens = events[-1]["response"]["usage"]["output_tokens"]
                return stamps[0] - sent, stamps[-1] - sent, tokens
            stamps.append(time.perf_counter())


async def test_ttft_is_respected(engine_factory: Any) -> None:
    engine = await engine_factory(brains=echo_brains, tps=5000, ttft_ms=150, frame_ms=10)
    first, _, _ = await _first_and_last(engine, "hello there")
    assert first >= 0.150


async def test_a_short_ttft_is_not_raised_to_the_frame(engine_factory: Any) -> None:
    # frame 300 ms: a first token held for a frame arrived after >= 300 ms
    engine = await engine_factory(brains=echo_brains, tps=5000, ttft_ms=2, frame_ms=300)
    first, _, _ = await _first_and_last(engine, "hello there")
    assert first >= 0.002
    assert first < 0.150


async def test_the_stream_keeps_its_schedule(engine_factory: Any) -> None:
    tps = 2000
    engine = await engine_factory(brains=echo_brains, tps=tps, ttft_ms=20, frame_ms=10)
    prompt = "".join(f"line {i} of the answer\n" for i in range(60))
    first, last, tokens = await _first_and_last(engine, prompt)
    assert tokens == count_tokens(prompt)
    # token i is due at t0 + TTFT + i / tps: the last one no sooner than that
    assert last >= 0.020 + (tokens - 1) / tps
    assert first >= 0.020


async def test_a_finished_answer_ends_on_schedule_not_a_frame_later(engine_factory: Any) -> None:
    # frame 300 ms: the rest of a finished answer held for a frame arrived after >= 300 ms
    tps = 1000
    engine = await engine_factory(brains=echo_brains, tps=tps, ttft_ms=2, frame_ms=300)
    prompt = "".join(f"line {i} of the answer\n" for i in range(5))
    _, last, tokens = await _first_and_last(engine, prompt)
    assert tokens == count_tokens(prompt) > 20
    assert last >= 0.002 + (tokens - 1) / tps  # the schedule still holds
    assert last < 0.150
