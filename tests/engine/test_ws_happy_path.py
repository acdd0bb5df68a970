"""WebSocket /v1/responses: the full event sequence, sequence numbers, usage, the header."""

from __future__ import annotations

from typing import Any

from engine_client import BOTH_SERVERS, echo_brains, send, text_of, until, ws_connect

from spark_cli.protocol.tokens import count_tokens

pytestmark = BOTH_SERVERS

SEQUENCE = [
    "response.created", "response.in_progress", "response.output_item.added",
    "response.content_part.added",
]
CLOSING = [
    "response.output_text.done", "response.content_part.done", "response.output_item.done",
    "response.completed",
]


async def test_full_event_sequence_and_numbers(engine_factory: Any) -> None:
    engine = await engine_factory(brains=echo_brains, tps=20000, ttft_ms=1)
    prompt = "def add(a, b):\n    return a + b\n" * 20
    async with ws_connect(engine) as ws:
        assert ws.response.headers["x-spark-engine-extensions"] == (
            "response.cancel, response.queued"
        )
        await send(ws, type="response.create", model="spark-test", input=prompt)
        events = await until(ws)
    kinds = [e["type"] for e in events]
    assert kinds[:4] == SEQUENCE
    assert kinds[-4:] == CLOSING
    assert set(kinds[4:-4]) == {"response.output_text.delta"}
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert text_of(events) == prompt
    done = events[-1]["response"]
    assert done["status"] == "completed"
    assert done["output"][0]["content"][0]["text"] == prompt
    assert done["usage"]["output_tokens"] == count_tokens(prompt)
    assert done["usage"]["input_tokens"] == count_tokens(prompt)
    ids = {e["response"]["id"] for e in events if "response" in e}
    assert len(ids) == 1
    assert all("stream_id" not in e for e in events)


async def test_stream_id_is_echoed_on_every_event(engine_factory: Any) -> None:
    engine = await engine_factory(brains=echo_brains, tps=20000, ttft_ms=1)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="hi", stream_id="lane-a")
        events = await until(ws)
    assert all(e["stream_id"] == "lane-a" for e in events)


async def test_default_engine_fixture_answers(engine: Any) -> None:
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="spark-rules", input="hello")
        events = await until(ws)
    assert events[-1]["type"] == "response.completed"
    assert text_of(events)


async def test_tokens_due_in_one_frame_share_one_delta(engine_factory: Any) -> None:
    engine = await engine_factory(brains=echo_brains, tps=2000, ttft_ms=0, frame_ms=20)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="lines:40")
        events = await until(ws)
    deltas = [e for e in events if e["type"] == "response.output_text.delta"]
    tokens = events[-1]["response"]["usage"]["output_tokens"]
    answer = "".join(f"line {i} of the answer\n" for i in range(40))
    assert text_of(events) == answer
    assert tokens == count_tokens(answer) == 241
    # 241 tokens at 2000/s last 120 ms: at most one frame per 20 ms (+ the first one)
    assert 2 <= len(deltas) <= 120 // 20 + 2


async def test_a_fast_stream_is_a_handful_of_frames(engine_factory: Any) -> None:
    engine = await engine_factory(brains=echo_brains, tps=1_000_000, ttft_ms=0)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="lines:700")
        events = await until(ws)
    deltas = [e for e in events if e["type"] == "response.output_text.delta"]
    answer = "".join(f"line {i} of the answer\n" for i in range(700))
    assert events[-1]["response"]["usage"]["output_tokens"] == count_tokens(answer)
    assert len(deltas) <= 4  # ~4,200 tokens are due within 5 ms: one or two frames
