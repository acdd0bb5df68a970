"""Out-of-range output limits are refused at intake; a failing generation still ends
with a terminal event; unbounded client input stays bounded."""

from __future__ import annotations

import json
import tracemalloc
from typing import Any

import httpx
import pytest
from engine_client import BOTH_SERVERS, echo_brains, recv, send, text_of, until, ws_connect
from waiting import wait_until

from spark_cli.engine.brains.registry import RegistryBrains
from spark_cli.engine.core import generation
from spark_cli.engine.core.config import MAX_OUTPUT_TOKENS
from spark_cli.engine.serving.conversations import LANE_PENDING_LIMIT

FAST = {"brains": echo_brains, "tps": 50000, "ttft_ms": 0}
AUTH = {"Authorization": "Bearer test-token"}
HUGE = "1" + "0" * 400  # a valid JSON integer, too big for a float


def client(engine: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=engine.url, trust_env=False, timeout=10, headers=AUTH)


@BOTH_SERVERS
@pytest.mark.parametrize("limit", [HUGE, str(MAX_OUTPUT_TOKENS + 1)], ids=["1e400", "max+1"])
async def test_ws_huge_max_output_tokens_is_a_400(engine_factory: Any, limit: str) -> None:
    engine = await engine_factory(**FAST)
    async with ws_connect(engine) as ws:
        await ws.send('{"type": "response.create", "model": "m", "input": "x", '
                      f'"stream_id": "a", "max_output_tokens": {limit}}}')
        error = await recv(ws)
        assert (error["type"], error["status"]) == ("error", 400)
        assert error["error"]["type"] == "invalid_request_error"
        assert error["error"]["code"] == "invalid_value"
        assert error["error"]["param"] == "max_output_tokens"
        assert error["stream_id"] == "a"
        assert "at most 128000" in error["error"]["message"]
        await send(ws, type="response.create", model="m", input="ok",
                   max_output_tokens=MAX_OUTPUT_TOKENS)
        assert (await until(ws))[-1]["type"] == "response.completed"


@pytest.mark.parametrize(("path", "param", "value"), [
    ("/v1/responses", "max_output_tokens", HUGE),
    ("/v1/chat/completions", "max_tokens", HUGE),
    ("/v1/chat/completions", "max_completion_tokens", HUGE),
    ("/v1/chat/completions", "max_completion_tokens", "0"),
    ("/v1/chat/completions", "max_tokens", str(MAX_OUTPUT_TOKENS + 1)),
], ids=["responses-1e400", "chat-1e400", "chat-completion-1e400", "chat-completion-0",
        "chat-max+1"])
async def test_http_out_of_range_limits_are_400(
    engine_factory: Any, path: str, param: str, value: str
) -> None:
    engine = await engine_factory(**FAST)
    body = ('{"model": "m", "input": "x", "stream": true, '
            f'"messages": [{{"role": "user", "content": "x"}}], "{param}": {value}}}')
    async with client(engine) as http:
        response = await http.post(path, content=body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["type"], error["code"], error["param"]) == (
        "invalid_request_error", "invalid_value", param)


def _explode(self: Any, sent: int) -> list[str]:
    raise RuntimeError("engine bug")


@BOTH_SERVERS
async def test_an_engine_failure_mid_stream_ends_with_response_failed(
    engine_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = await engine_factory(**FAST)
    monkeypatch.setattr(generation.FaultPlan, "due", _explode)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="forever")
        events = await until(ws)
        failed = events[-1]
        assert failed["type"] == "response.failed"
        assert "RuntimeError: engine bug" in failed["response"]["error"]["message"]
        assert failed["response"]["status"] == "failed"
        monkeypatch.undo()
        await send(ws, type="response.create", model="m", input="still here")
        assert text_of(await until(ws)) == "still here"


async def test_an_engine_failure_ends_an_http_chat_stream_with_an_error_chunk(
    engine_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = await engine_factory(**FAST)
    monkeypatch.setattr(generation.FaultPlan, "due", _explode)
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "forever"}]}
    async with client(engine) as http, http.stream(
        "POST", "/v1/chat/completions", json=body
    ) as response:
        lines = [line async for line in response.aiter_lines() if line.startswith("data: ")]
    last = json.loads(lines[-1].removeprefix("data: "))
    assert "engine bug" in last["error"]["message"]
    async with client(engine) as http:
        plain = await http.post("/v1/chat/completions", json={**body, "stream": False})
    assert plain.status_code == 500 and "engine bug" in plain.json()["error"]["message"]


async def test_no_limit_stops_at_the_documented_maximum(engine_factory: Any) -> None:
    from spark_cli.engine.brains.lorem import LoremBrain

    engine = await engine_factory(brains=lambda model: LoremBrain(), tps=10_000_000, ttft_ms=0)
    async with client(engine) as http:
        response = await http.post("/v1/responses", json={"model": "spark-lorem", "input": "x"},
                                   timeout=60)
    body = response.json()
    assert body["status"] == "incomplete"
    assert body["usage"]["output_tokens"] == MAX_OUTPUT_TOKENS


@BOTH_SERVERS
async def test_a_lane_holds_a_bounded_number_of_waiting_requests(engine_factory: Any) -> None:
    engine = await engine_factory(brains=echo_brains, tps=200, ttft_ms=0)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="forever")
        await until(ws, "response.output_text.delta")
        for _ in range(LANE_PENDING_LIMIT + 1):
            await send(ws, type="response.create", model="m", input="x")
        error = await until(ws, "error")
        assert error[-1]["status"] == 429 and error[-1]["error"]["code"] == "rate_limit_exceeded"
        assert f"{LANE_PENDING_LIMIT} requests waiting" in error[-1]["error"]["message"]
        await send(ws, type="response.cancel")


async def test_idle_lanes_are_forgotten(engine_factory: Any) -> None:
    from spark_cli.engine.core.config import EngineConfig
    from spark_cli.engine.core.state import EngineState
    from spark_cli.engine.serving.ws_session import WsSession

    state = EngineState(EngineConfig(tps=50000, ttft_ms=0), echo_brains)
    sent: list[str] = []

    async def send_text(text: str) -> None:
        sent.append(text)

    async def close(code: int, reason: str) -> None:
        pass

    session = WsSession(state, send_text, close)
    try:
        for i in range(50):
            await session.handle(json.dumps({"type": "response.create", "model": "m",
                                             "input": "x", "stream_id": f"lane-{i}"}))
        await wait_until(lambda: sum('"response.completed"' in t for t in sent) >= 50, 10)
        await wait_until(lambda: not session.lanes, 10)
        assert len(session.memory.latest) == 50  # chaining still works per lane
    finally:
        await session.stop()
        state.close()


def test_distinct_model_names_do_not_grow_memory() -> None:
    factory = RegistryBrains("rules")
    factory("warm-up")
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(100):
            factory(f"{i}-" + "m" * 100_000)  # a client picks any model string
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 1_000_000  # was 10 MB: one cache entry per name


@BOTH_SERVERS
async def test_the_maximum_is_configurable(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST, max_output_tokens=500)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="x", max_output_tokens=501)
        assert "at most 500" in (await recv(ws))["error"]["message"]
        await send(ws, type="response.create", model="m", input="forever")
        end = (await until(ws))[-1]["response"]
    assert (end["status"], end["usage"]["output_tokens"]) == ("incomplete", 500)


def test_a_brains_registry_that_cannot_be_imported_fails_loudly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib
    import sys

    monkeypatch.setitem(sys.modules, "spark_cli.engine.brains.registry", None)
    monkeypatch.delitem(sys.modules, "spark_cli.engine.serving.server")
    with pytest.raises(ImportError):  # the engine cannot start: never a stand-in answer
        importlib.import_module("spark_cli.engine.serving.server")
