"""Steering (accepted -> incomplete steered -> successor), the cancel extension, closing."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from engine_client import BOTH_SERVERS, echo_brains, recv, send, text_of, until, ws_connect
from waiting import wait_until

pytestmark = BOTH_SERVERS

SLOW = {"brains": echo_brains, "tps": 500, "ttft_ms": 0}


async def _started(ws: Any, prompt: str, **extra: Any) -> str:
    await send(ws, type="response.create", model="m", input=prompt, **extra)
    events = await until(ws, "response.output_text.delta")
    return events[0]["response"]["id"]


async def test_steer_ends_at_a_line_and_the_successor_continues(engine_factory: Any) -> None:
    engine = await engine_factory(**SLOW)
    async with ws_connect(engine) as ws:
        old = await _started(ws, "forever", stream_id="s")
        await send(ws, type="response.steer", previous_response_id=old,
                   input=[{"type": "message", "role": "user", "content": "history"}])
        events = await until(ws, "response.incomplete")
        successor = await until(ws, "response.completed")
    accepted = next(e for e in events if e["type"] == "response.steer.accepted")
    assert accepted["steer"]["previous_response_id"] == old
    assert accepted["steer"]["id"].startswith("steer_")
    assert accepted["stream_id"] == "s"
    end = events[-1]["response"]
    assert end["id"] == old
    assert end["incomplete_details"] == {"reason": "steered"}
    assert end["output"][0]["content"][0]["text"].endswith("\n")  # a line boundary
    assert successor[0]["type"] == "response.created"
    assert successor[0]["response"]["previous_response_id"] == old
    assert successor[0]["stream_id"] == "s"
    told = text_of(successor)
    assert told.startswith("user:forever | assistant:word word")
    assert told.endswith(" | user:history")


async def test_steer_without_id_targets_the_running_response(engine_factory: Any) -> None:
    engine = await engine_factory(**SLOW)
    async with ws_connect(engine) as ws:
        await _started(ws, "forever")
        await send(ws, type="response.steer", input="history")
        events = await until(ws, "response.incomplete")
        assert any(e["type"] == "response.steer.accepted" for e in events)
        assert (await until(ws, "response.completed"))[0]["type"] == "response.created"


async def test_steer_never_cuts_inside_an_edit_block(engine_factory: Any) -> None:
    class BlockBrain:
        name = "block"

        def answer(self, request: Any) -> Any:
            if request.prompt != "go":
                yield "ok"
                return
            yield "intro\n```python\n<<<<<<< SEARCH\n"
            yield "".join(f"old {i}\n" for i in range(60))
            yield "=======\nnew\n>>>>>>> REPLACE\n```\n"
            yield "after\n" * 50

    engine = await engine_factory(brains=lambda model: BlockBrain(), tps=400, ttft_ms=0)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="go")
        seen = await until(ws, "response.output_text.delta")
        while "SEARCH\n" not in text_of(seen):  # steer from inside the block
            seen.append(await recv(ws))
        assert ">>>>>>> REPLACE" not in text_of(seen)
        old = seen[0]["response"]["id"]
        await send(ws, type="response.steer", previous_response_id=old, input="stop")
        events = await until(ws, "response.incomplete")
        await until(ws, "response.completed")
    text = events[-1]["response"]["output"][0]["content"][0]["text"]
    assert text.endswith("\n")
    assert text.count("```") % 2 == 0, text


async def test_steer_failures(engine_factory: Any) -> None:
    engine = await engine_factory(brains=echo_brains, tps=50000, ttft_ms=0)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.steer", input="x")
        failed = await recv(ws)
        assert failed["type"] == "response.steer.failed"
        assert failed["error"]["code"] == "no_active_response"
        assert failed["steer"]["input"] == "x"
        await send(ws, type="response.steer", previous_response_id="resp_x", input="x")
        assert (await recv(ws))["error"]["code"] == "response_not_found"
        await send(ws, type="response.create", model="m", input="done soon")
        finished = (await until(ws))[-1]["response"]["id"]
        await send(ws, type="response.steer", previous_response_id=finished, input="late")
        failed = await recv(ws)
        assert failed["error"]["code"] == "response_already_completed"
        assert failed["steer"]["previous_response_id"] == finished
        await send(ws, type="response.steer", input=[{"role": "assistant", "content": "x"}])
        assert (await recv(ws))["error"]["param"] == "input"


async def test_cancel_extension_ends_with_incomplete_cancelled(engine_factory: Any) -> None:
    engine = await engine_factory(**SLOW)
    async with ws_connect(engine) as ws:
        rid = await _started(ws, "forever")
        await send(ws, type="response.cancel", response_id=rid)
        events = await until(ws)
        assert events[-1]["type"] == "response.incomplete"
        assert events[-1]["response"]["incomplete_details"]["reason"] == "cancelled"
        assert engine.state.generating == 0
        await send(ws, type="response.create", model="m", input="next")
        assert text_of(await until(ws)) == "next"


async def test_cancel_unknown_id_is_an_error(engine_factory: Any) -> None:
    engine = await engine_factory(**SLOW)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.cancel", response_id="resp_zzz")
        error = await recv(ws)
    assert error["error"]["code"] == "response_not_found"
    assert error["error"]["param"] == "response_id"


async def test_cancel_a_queued_response(engine_factory: Any) -> None:
    engine = await engine_factory(**SLOW, max_streams=1)
    async with ws_connect(engine) as ws:
        await _started(ws, "forever", stream_id="a")
        await send(ws, type="response.create", model="m", input="x", stream_id="b")
        queued = await until(ws, "response.queued")
        rid = queued[-1]["response"]["id"]
        await send(ws, type="response.cancel", response_id=rid)
        events = [e for e in await until(ws, "response.incomplete") if e["stream_id"] == "b"]
        assert events[-1]["response"]["incomplete_details"]["reason"] == "cancelled"
        assert [e["type"] for e in events] == ["response.incomplete"]  # nothing was opened


async def test_closing_the_socket_stops_generation(engine_factory: Any) -> None:
    engine = await engine_factory(**SLOW)
    async with ws_connect(engine) as ws:
        await _started(ws, "forever")
        assert engine.state.generating == 1
    await wait_until(lambda: not (engine.state.generating or engine.state.wafer.active), 5)


async def test_steering_a_queued_response_hands_over_to_the_successor(
    engine_factory: Any,
) -> None:
    engine = await engine_factory(**SLOW, max_streams=1)
    async with ws_connect(engine) as ws:
        running = await _started(ws, "lines:30", stream_id="a")
        await send(ws, type="response.create", model="m", input="first", stream_id="b")
        queued = (await until(ws, "response.queued"))[-1]["response"]["id"]
        await send(ws, type="response.steer", previous_response_id=queued, input="history")
        events: list[dict[str, Any]] = []
        async with asyncio.timeout(10):
            while sum(e["type"] == "response.completed" for e in events) < 2:
                events.append(await recv(ws))
    lane_b = [e for e in events if e.get("stream_id") == "b"]
    ended = next(e for e in lane_b if e["type"] == "response.incomplete")
    assert ended["response"]["id"] == queued
    assert ended["response"]["incomplete_details"]["reason"] == "steered"
    successor = [e for e in lane_b if e["type"] == "response.created"][-1]
    assert successor["response"]["previous_response_id"] == queued
    assert text_of(lane_b) == "user:first | assistant: | user:history"
    assert running != queued


@pytest.mark.parametrize("lanes", [1, 3])
async def test_a_bare_cancel_right_after_create_cancels_what_waits(lanes: int) -> None:
    """``response.create`` then at once a ``response.cancel`` without an id, before the
    lane's worker took the request: nothing streams, each ends incomplete (cancelled);
    a request sent after the cancel runs as usual."""
    from spark_cli.engine.core.config import EngineConfig
    from spark_cli.engine.core.state import EngineState
    from spark_cli.engine.serving.ws_session import WsSession

    state = EngineState(EngineConfig(tps=500, ttft_ms=0), echo_brains)
    sent: list[dict[str, Any]] = []

    async def send_text(text: str) -> None:
        sent.append(json.loads(text))

    async def close(code: int, reason: str) -> None:
        pass

    session = WsSession(state, send_text, close)
    try:
        for lane in range(lanes):  # handled without yielding: no worker has started yet
            await session.handle(json.dumps({"type": "response.create", "model": "m",
                                             "input": "forever", "stream_id": f"w{lane}"}))
        await session.handle(json.dumps({"type": "response.cancel"}))
        await session.handle(json.dumps({"type": "response.create", "model": "m",
                                         "input": "after", "stream_id": "later"}))
        await wait_until(lambda: sum(e["type"] in ("response.incomplete", "response.completed")
                                     for e in sent) >= lanes + 1, 10)
    finally:
        await session.stop()
        state.close()
    ends = [e for e in sent if e["type"] in ("response.incomplete", "response.completed")]
    cancelled = [e for e in ends if str(e.get("stream_id")).startswith("w")]
    assert len(cancelled) == lanes
    assert all(e["type"] == "response.incomplete"
               and e["response"]["incomplete_details"]["reason"] == "cancelled"
               for e in cancelled)
    streamed = {e.get("stream_id") for e in sent if e["type"] == "response.output_text.delta"}
    assert streamed == {"later"}  # only the request sent after the cancel streamed
