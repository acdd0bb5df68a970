"""Plain HTTP on the engine port: healthz, models, Responses SSE/JSON, Chat SSE/JSON, 401, 429."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from engine_client import echo_brains
from waiting import wait_until

from spark_cli.engine.core.config import parse_fault
from spark_cli.protocol.sse import SSEDecoder, SSEEvent
from spark_cli.protocol.tokens import count_tokens

FAST = {"brains": echo_brains, "tps": 50000, "ttft_ms": 0}
AUTH = {"Authorization": "Bearer test-token"}


def client(engine: Any, **kwargs: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=engine.url, trust_env=False, timeout=10, **kwargs)


async def sse(response: httpx.Response) -> list[SSEEvent]:
    decoder = SSEDecoder()
    events = []
    async for line in response.aiter_lines():
        event = decoder.feed_line(line)
        if event is not None:
            events.append(event)
    return events


async def test_healthz_needs_no_token(engine: Any) -> None:
    async with client(engine) as http:
        response = await http.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


async def test_models_lists_brain_models(engine: Any) -> None:
    async with client(engine, headers=AUTH) as http:
        body = (await http.get("/v1/models")).json()
    assert body["object"] == "list"
    ids = [m["id"] for m in body["data"]]
    assert "spark-rules" in ids and "spark-lorem" in ids and "spark-deep" in ids


async def test_models_list_each_models_pace(engine_factory: Any) -> None:
    engine = await engine_factory(tps=900, ttft_ms=30, deep_tps=70, deep_ttft_ms=1200)
    async with client(engine, headers=AUTH) as http:
        body = (await http.get("/v1/models")).json()
    pacing = {m["id"]: m["pacing"] for m in body["data"]}
    assert pacing["spark-deep"] == {"tokens_per_second": 70, "ttft_ms": 1200}
    assert pacing["spark-rules"] == pacing["spark-lorem"] == {"tokens_per_second": 900,
                                                              "ttft_ms": 30}


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer nope"},
                                     {"Authorization": "Basic dGVzdC10b2tlbg=="}])
async def test_401_in_openai_shape(engine: Any, headers: dict[str, str]) -> None:
    async with client(engine, headers=headers) as http:
        for method, path in (("GET", "/v1/models"), ("POST", "/v1/responses"),
                             ("POST", "/v1/chat/completions")):
            response = await http.request(method, path, json={})
            assert response.status_code == 401
            error = response.json()["error"]
            assert error["code"] == "invalid_api_key"
            assert error["type"] == "invalid_request_error"
            assert error["message"]


async def test_no_token_configured_means_open(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST, token=None)
    async with client(engine) as http:
        assert (await http.get("/v1/models")).status_code == 200


async def test_responses_sse_stream(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    body = {"model": "m", "input": "hello over http", "stream": True}
    async with client(engine, headers=AUTH) as http, http.stream(
        "POST", "/v1/responses", json=body
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        events = await sse(response)
    assert events[0].event == "response.created"
    assert events[-1].event == "response.completed"
    assert all(json.loads(e.data)["type"] == e.event for e in events)
    text = "".join(json.loads(e.data)["delta"] for e in events
                   if e.event == "response.output_text.delta")
    assert text == "hello over http"
    assert not any(e.data == "[DONE]" for e in events)


async def test_responses_json_and_stored_chaining(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    async with client(engine, headers=AUTH) as http:
        first = (await http.post("/v1/responses", json={"model": "m", "input": "one"})).json()
        assert first["object"] == "response" and first["status"] == "completed"
        assert first["output"][0]["content"][0]["text"] == "one"
        second = (await http.post("/v1/responses", json={
            "model": "m", "input": "history", "previous_response_id": first["id"]})).json()
        text = second["output"][0]["content"][0]["text"]
        assert text == "user:one | assistant:one | user:history"
        missing = await http.post("/v1/responses", json={
            "model": "m", "input": "x", "previous_response_id": "resp_none"})
    assert missing.status_code == 400
    assert missing.json()["error"]["code"] == "previous_response_not_found"


@pytest.mark.parametrize(
    ("path", "body", "status", "code"),
    [
        ("/v1/responses", b"{nope", 400, "invalid_json"),
        ("/v1/responses", b'{"input": "x"}', 400, "missing_required_parameter"),
        ("/v1/chat/completions", b'{"model": "m"}', 400, "missing_required_parameter"),
        ("/v1/chat/completions", b'{"model": "m", "messages": []}', 400, "invalid_value"),
        ("/v1/chat/completions", b'{"model": "m", "messages": [{"type": "additional_tools", '
         b'"role": "developer", "tools": []}]}', 400, "invalid_value"),
        ("/v1/responses", b'{"model": "m", "input": [{"type": "additional_tools", '
         b'"role": "developer", "tools": "all"}]}', 400, "invalid_type"),
        ("/v1/nowhere", b"{}", 404, "not_found"),
    ],
)
async def test_http_bad_input(
    engine_factory: Any, path: str, body: bytes, status: int, code: str
) -> None:
    engine = await engine_factory(**FAST)
    async with client(engine, headers=AUTH) as http:
        response = await http.post(path, content=body)
    assert response.status_code == status
    assert response.json()["error"]["code"] == code


async def test_http_body_too_large_is_413(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST, http_max_body=1000)
    async with client(engine, headers=AUTH) as http:
        response = await http.post("/v1/responses", json={"model": "m", "input": "x" * 5000})
    assert response.status_code == 413


async def test_chat_sse_with_usage_and_done(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    body = {"model": "m", "stream": True, "stream_options": {"include_usage": True},
            "messages": [{"role": "system", "content": "be brief"},
                         {"role": "user", "content": "chat me up"}]}
    async with client(engine, headers=AUTH) as http, http.stream(
        "POST", "/v1/chat/completions", json=body
    ) as response:
        events = await sse(response)
    assert all(e.event == "message" for e in events)
    assert events[-1].data == "[DONE]"
    chunks = [json.loads(e.data) for e in events[:-1]]
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert text == "chat me up"
    finish = [c for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]]
    assert finish[0]["choices"][0]["finish_reason"] == "stop"
    usage = chunks[-1]["usage"]
    assert chunks[-1]["choices"] == []
    assert usage["completion_tokens"] == count_tokens("chat me up")
    assert "time_info" in usage


async def test_chat_json_with_length_finish(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    body = {"model": "m", "max_tokens": 7, "messages": [{"role": "user", "content": "forever"}]}
    async with client(engine, headers=AUTH) as http:
        completion = (await http.post("/v1/chat/completions", json=body)).json()
    assert completion["object"] == "chat.completion"
    assert completion["choices"][0]["finish_reason"] == "length"
    assert completion["usage"]["completion_tokens"] == 7


async def test_http_429_fault_has_headers(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST, faults=parse_fault("429:1"))
    async with client(engine, headers=AUTH) as http:
        response = await http.post("/v1/chat/completions", json={
            "model": "m", "messages": [{"role": "user", "content": "x"}]})
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "rate_limit_exceeded"
    assert int(response.headers["retry-after-ms"]) > 0
    assert response.headers["x-ratelimit-remaining-requests"] == "0"


async def test_http_tpm_429(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST, tpm=10)
    async with client(engine, headers=AUTH) as http:
        body = {"model": "m", "input": "lines:5", "stream": True}
        assert (await http.post("/v1/responses", json=body)).status_code == 200
        refused = await http.post("/v1/responses", json=body)
    assert refused.status_code == 429
    assert refused.headers["x-ratelimit-limit-tokens"] == "10"


async def _read_until_broken(response: httpx.Response) -> tuple[list[SSEEvent], Exception]:
    decoder = SSEDecoder()
    events: list[SSEEvent] = []
    with pytest.raises(httpx.RemoteProtocolError) as broken:
        async for line in response.aiter_lines():
            event = decoder.feed_line(line)
            if event is not None:
                events.append(event)
    return events, broken.value


@pytest.mark.parametrize("path", ["/v1/responses", "/v1/chat/completions"])
async def test_http_drop_fault_aborts_mid_body(engine_factory: Any, path: str) -> None:
    engine = await engine_factory(**FAST, faults=parse_fault("drop:4"))
    body = {"model": "m", "stream": True, "input": "forever",
            "messages": [{"role": "user", "content": "forever"}]}
    async with client(engine, headers=AUTH) as http, http.stream(
        "POST", path, json=body
    ) as response:
        events, error = await _read_until_broken(response)
    assert "incomplete chunked read" in str(error)
    data = [e.data for e in events]
    assert any("output_text.delta" in d or '"content"' in d for d in data)
    assert not any("response.completed" in d or "[DONE]" in d for d in data)


async def test_http_drop_fault_without_stream_is_a_reset(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST, faults=parse_fault("drop:4"))
    async with client(engine, headers=AUTH) as http:
        with pytest.raises(httpx.RemoteProtocolError):
            await http.post("/v1/responses", json={"model": "m", "input": "forever"})


async def test_http_malformed_fault(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST, faults=parse_fault("malformed:2"))
    body = {"model": "m", "messages": [{"role": "user", "content": "lines:2"}], "stream": True}
    async with client(engine, headers=AUTH) as http, http.stream(
        "POST", "/v1/chat/completions", json=body
    ) as response:
        events = await sse(response)
    bad = 0
    for event in events:
        try:
            json.loads(event.data) if event.data != "[DONE]" else None
        except ValueError:
            bad += 1
    assert bad == 1


async def test_http_client_disconnect_stops_generation(engine_factory: Any) -> None:

    engine = await engine_factory(brains=echo_brains, tps=500, ttft_ms=0)
    body = {"model": "m", "input": "forever", "stream": True}
    async with client(engine, headers=AUTH) as http, http.stream(
        "POST", "/v1/responses", json=body
    ) as response:
        async for line in response.aiter_lines():
            if "output_text.delta" in line:
                break
        assert engine.state.generating == 1
    await wait_until(lambda: not engine.state.generating, 5)


async def test_http_warm_up_and_store_false(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    async with client(engine, headers=AUTH) as http:
        warm = (await http.post("/v1/responses", json={
            "model": "m", "input": "ctx", "generate": False})).json()
        assert warm["status"] == "completed" and warm["output"] == []
        assert warm["usage"]["input_tokens"] == count_tokens("ctx")  # as on the WebSocket
        chained = (await http.post("/v1/responses", json={
            "model": "m", "input": "history", "previous_response_id": warm["id"]})).json()
        assert chained["output"][0]["content"][0]["text"] == "user:ctx | user:history"
        unstored = (await http.post("/v1/responses", json={
            "model": "m", "input": "x", "store": False})).json()
        refused = await http.post("/v1/responses", json={
            "model": "m", "input": "y", "previous_response_id": unstored["id"]})
    assert refused.status_code == 400
