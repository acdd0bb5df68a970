"""Capacity (queue positions, full queue 429), the tpm bucket and every --fault knob."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from engine_client import BOTH_SERVERS, echo_brains, recv, send, text_of, until, ws_connect
from waiting import wait_until
from websockets.exceptions import ConnectionClosedError

from spark_cli.engine.core.config import FaultConfig, parse_fault
from spark_cli.protocol.tokens import split_pieces

pytestmark = BOTH_SERVERS

SLOW = {"brains": echo_brains, "tps": 500, "ttft_ms": 0}


async def test_queued_responses_learn_their_positions(engine_factory: Any) -> None:
    engine = await engine_factory(**SLOW, max_streams=1, queue=4)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="lines:10", stream_id="a")
        await until(ws, "response.output_text.delta")
        await send(ws, type="response.create", model="m", input="lines:5", stream_id="b")
        await send(ws, type="response.create", model="m", input="c", stream_id="c")
        events: list[dict[str, Any]] = []
        async with asyncio.timeout(10):
            while sum(e["type"] == "response.completed" for e in events) < 3:
                events.append(await recv(ws))
    positions = {lane: [e["position"] for e in events
                        if e["type"] == "response.queued" and e["stream_id"] == lane]
                 for lane in "bc"}
    assert positions == {"b": [1], "c": [2, 1]}
    created_c = next(e for e in events if e["type"] == "response.created" and e["stream_id"] == "c")
    assert created_c["response"]["status"] == "queued"
    queued = next(e for e in events if e["type"] == "response.queued")
    assert queued["response"]["status"] == "queued"
    assert text_of([e for e in events if e["stream_id"] == "c"]) == "c"


async def test_full_queue_is_429_with_headers(engine_factory: Any) -> None:
    engine = await engine_factory(**SLOW, max_streams=1, queue=1)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="forever", stream_id="a")
        await until(ws, "response.output_text.delta")
        await send(ws, type="response.create", model="m", input="x", stream_id="b")
        await until(ws, "response.queued")
        await send(ws, type="response.create", model="m", input="x", stream_id="c")
        error = await until(ws, "error")
    event = error[-1]
    assert event["status"] == 429
    assert event["stream_id"] == "c"
    assert event["error"]["code"] == "rate_limit_exceeded"
    headers = event["error"]["headers"]
    assert headers["x-ratelimit-limit-requests"] == "2"
    assert headers["x-ratelimit-remaining-requests"] == "0"
    assert int(headers["retry-after-ms"]) > 0
    assert headers["x-ratelimit-reset-requests"]


async def test_tpm_bucket_refuses_once_spent(engine_factory: Any) -> None:
    engine = await engine_factory(brains=echo_brains, tps=50000, ttft_ms=0, tpm=30)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="lines:10")
        assert (await until(ws))[-1]["type"] == "response.completed"
        await send(ws, type="response.create", model="m", input="again")
        error = (await until(ws))[-1]
    assert error["type"] == "error" and error["status"] == 429
    headers = error["error"]["headers"]
    assert headers["x-ratelimit-limit-tokens"] == "30"
    assert headers["x-ratelimit-remaining-tokens"] == "0"
    assert headers["x-ratelimit-reset-tokens"].endswith("s")
    assert int(headers["retry-after-ms"]) > 0


async def test_tpm_admits_only_what_fits(engine_factory: Any) -> None:
    engine = await engine_factory(brains=echo_brains, tps=50000, ttft_ms=0, tpm=100)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="x", max_output_tokens=150)
        too_big = (await until(ws))[-1]
        await send(ws, type="response.create", model="m", input="a b c", max_output_tokens=60)
        first = (await until(ws))[-1]  # 3 + 60 reserved, 3 + 5 used: 55 come back
        await send(ws, type="response.create", model="m", input="x", max_output_tokens=80)
        second = (await until(ws))[-1]
        await send(ws, type="response.create", model="m", input="x", max_output_tokens=95)
        refused = (await until(ws))[-1]
    assert too_big["status"] == 429 and "too large" in too_big["error"]["message"]
    assert first["type"] == second["type"] == "response.completed"
    # about 90 left: the balance is positive, but 96 tokens do not fit
    assert refused["status"] == 429 and int(refused["error"]["headers"]["retry-after-ms"]) > 0


async def test_max_output_tokens_ends_incomplete(engine_factory: Any) -> None:
    engine = await engine_factory(brains=echo_brains, tps=50000, ttft_ms=0)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="forever", max_output_tokens=25)
        events = await until(ws)
    end = events[-1]["response"]
    assert events[-1]["type"] == "response.incomplete"
    assert end["incomplete_details"] == {"reason": "max_output_tokens"}
    assert end["usage"]["output_tokens"] == 25


async def test_exact_limit_on_a_finished_answer_is_completed(engine_factory: Any) -> None:
    engine = await engine_factory(brains=echo_brains, tps=50000, ttft_ms=0)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="a b c", max_output_tokens=3)
        assert (await until(ws))[-1]["type"] == "response.completed"


async def test_drop_fault_aborts_the_socket_mid_stream(engine_factory: Any) -> None:
    engine = await engine_factory(**SLOW, faults=FaultConfig(drop_after_tokens=12))
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="forever")
        events: list[dict[str, Any]] = []
        with pytest.raises(ConnectionClosedError) as closed:
            while True:
                events.append(await recv(ws))
    assert closed.value.rcvd is None  # no close frame: the client sees 1006
    assert ws.close_code == 1006
    assert not any(e["type"] == "response.incomplete" for e in events)
    assert sum(e["delta"].count("word") for e in events if "delta" in e) == 12
    await wait_until(lambda: not engine.state.generating, 5)


async def test_stall_fault_pauses_then_finishes(engine_factory: Any) -> None:
    faults = parse_fault("stall:5:300")
    engine = await engine_factory(brains=echo_brains, tps=50000, ttft_ms=0, faults=faults)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="lines:5")
        answer = "".join(f"line {i} of the answer\n" for i in range(5))
        head = "".join(split_pieces(answer)[:5])
        first: list[dict[str, Any]] = []
        while text_of(first) != head:
            first += await until(ws, "response.output_text.delta")
            assert len(text_of(first)) <= len(head)
        with pytest.raises(TimeoutError):
            await recv(ws, timeout=0.1)  # inside the 300 ms stall nothing comes
        rest = await until(ws)
    assert text_of(first + rest) == answer


async def test_malformed_fault_sends_one_bad_frame(engine_factory: Any) -> None:
    faults = parse_fault("malformed:3")
    engine = await engine_factory(brains=echo_brains, tps=50000, ttft_ms=0, faults=faults)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="lines:3")
        raw: list[str] = []
        async with asyncio.timeout(5):
            while not raw or '"response.completed"' not in raw[-1]:
                raw.append(await ws.recv())  # type: ignore[arg-type]
    bad = []
    for frame in raw:
        try:
            json.loads(frame)
        except ValueError:
            bad.append(frame)
    assert len(bad) == 1


async def test_429_fault_is_seeded(engine_factory: Any) -> None:
    outcomes: list[list[str]] = []
    for _ in range(2):
        engine = await engine_factory(brains=echo_brains, tps=50000, ttft_ms=0,
                                      faults=parse_fault("429:0.5:7"))
        seen: list[str] = []
        async with ws_connect(engine) as ws:
            for _ in range(12):
                await send(ws, type="response.create", model="m", input="x")
                seen.append((await until(ws))[-1]["type"])
        outcomes.append(seen)
    assert outcomes[0] == outcomes[1]
    assert {"error", "response.completed"} == set(outcomes[0])


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("drop:200", FaultConfig(drop_after_tokens=200)),
        ("stall:100:3000", FaultConfig(stall_after_tokens=100, stall_ms=3000.0)),
        ("malformed:50", FaultConfig(malformed_after_tokens=50)),
        ("429:0.3", FaultConfig(http_429_probability=0.3)),
        ("429:1:9", FaultConfig(http_429_probability=1.0, seed=9)),
    ],
)
def test_parse_fault(spec: str, expected: FaultConfig) -> None:
    assert parse_fault(spec) == expected


@pytest.mark.parametrize("spec", ["drop", "drop:x", "stall:1", "429:2", "nope:1", "drop:-1"])
def test_parse_fault_rejects(spec: str) -> None:
    with pytest.raises(ValueError, match="--fault"):
        parse_fault(spec)
