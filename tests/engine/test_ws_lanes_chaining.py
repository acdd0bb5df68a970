"""Lanes, connection-local chaining, warm-up, max connection age."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from engine_client import BOTH_SERVERS, echo_brains, recv, send, text_of, until, ws_connect
from websockets.exceptions import ConnectionClosed

pytestmark = BOTH_SERVERS

FAST = {"brains": echo_brains, "tps": 50000, "ttft_ms": 0}


async def test_previous_response_id_continues_the_conversation(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="first")
        first = await until(ws)
        first_id = first[-1]["response"]["id"]
        await send(ws, type="response.create", model="m", input="history",
                   previous_response_id=first_id)
        second = await until(ws)
    assert text_of(second) == "user:first | assistant:first | user:history"
    assert second[0]["response"]["previous_response_id"] == first_id


async def test_without_previous_id_a_fresh_conversation(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="first")
        await until(ws)
        await send(ws, type="response.create", model="m", input="history")
        assert text_of(await until(ws)) == "user:history"


async def test_unknown_previous_id_is_400_and_connection_stays(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="x",
                   previous_response_id="resp_nope", stream_id="L")
        error = await recv(ws)
        assert error["type"] == "error"
        assert error["status"] == 400
        assert error["error"]["code"] == "previous_response_not_found"
        assert error["error"]["param"] == "previous_response_id"
        assert error["stream_id"] == "L"
        await send(ws, type="response.create", model="m", input="still here")
        assert text_of(await until(ws)) == "still here"


async def test_only_the_latest_unstored_response_is_chainable(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="a")
        a = (await until(ws))[-1]["response"]["id"]
        await send(ws, type="response.create", model="m", input="b", previous_response_id=a)
        await until(ws)
        await send(ws, type="response.create", model="m", input="c", previous_response_id=a)
        error = await recv(ws)
    assert error["error"]["code"] == "previous_response_not_found"


async def test_stored_responses_stay_chainable(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="a", store=True)
        a = (await until(ws))[-1]["response"]["id"]
        await send(ws, type="response.create", model="m", input="b", previous_response_id=a)
        await until(ws)
        await send(ws, type="response.create", model="m", input="history",
                   previous_response_id=a)
        assert text_of(await until(ws)) == "user:a | assistant:a | user:history"


async def test_chaining_is_connection_local(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="a")
        a = (await until(ws))[-1]["response"]["id"]
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="b", previous_response_id=a)
        assert (await recv(ws))["error"]["code"] == "previous_response_not_found"


async def test_requests_on_one_lane_run_in_order(engine_factory: Any) -> None:
    engine = await engine_factory(brains=echo_brains, tps=2000, ttft_ms=0)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="lines:20")
        await send(ws, type="response.create", model="m", input="second")
        events = await until(ws, "response.completed")
        events += await until(ws, "response.completed")
    first_id = events[0]["response"]["id"]
    owners = [e.get("response", {}).get("id") for e in events if "response" in e]
    assert owners.index(first_id) == 0
    boundary = next(i for i, e in enumerate(events) if e["type"] == "response.completed")
    assert all(e["type"] != "response.created" for e in events[1:boundary])
    assert text_of(events[boundary + 1 :]) == "second"


async def test_lanes_run_in_parallel(engine_factory: Any) -> None:
    engine = await engine_factory(brains=echo_brains, tps=2000, ttft_ms=0)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="lines:30", stream_id="a")
        await send(ws, type="response.create", model="m", input="lines:30", stream_id="b")
        events: list[dict[str, Any]] = []
        done = 0
        async with asyncio.timeout(10):
            while done < 2:
                event = await recv(ws)
                events.append(event)
                done += event["type"] == "response.completed"
    lanes = [e["stream_id"] for e in events if e["type"] == "response.output_text.delta"]
    first_b = lanes.index("b")
    assert "a" in lanes[first_b:], "lane b did not start before lane a finished"
    for lane in ("a", "b"):
        mine = [e for e in events if e["stream_id"] == lane]
        assert [e["sequence_number"] for e in mine] == list(range(len(mine)))
        assert text_of(mine) == "".join(f"line {i} of the answer\n" for i in range(30))


async def test_warm_up_gives_a_chainable_id_and_no_output(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="context", generate=False)
        warm = await until(ws)
        assert [e["type"] for e in warm] == ["response.created", "response.completed"]
        assert warm[-1]["response"]["output"] == []
        assert warm[-1]["response"]["usage"]["output_tokens"] == 0
        await send(ws, type="response.create", model="m", input="history",
                   previous_response_id=warm[-1]["response"]["id"])
        assert text_of(await until(ws)) == "user:context | user:history"


async def test_warm_up_without_input(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", generate=False)
        assert (await until(ws))[-1]["type"] == "response.completed"


async def test_max_connection_age_ends_with_limit_error(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST, max_connection_age_s=0.2)
    async with ws_connect(engine) as ws:
        error = await recv(ws, timeout=5)
        assert error["type"] == "error"
        assert error["error"]["code"] == "websocket_connection_limit_reached"
        with pytest.raises(ConnectionClosed):
            await recv(ws, timeout=5)
