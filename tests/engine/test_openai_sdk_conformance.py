"""Conformance with a client we did not write: the official ``openai`` SDK.

Every WebSocket event is validated strictly against the SDK's own
``ResponsesServerEvent`` union (required fields, literals), not only parsed.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from engine_client import echo_brains
from openai import AsyncOpenAI, BadRequestError, RateLimitError
from openai.types.responses.responses_server_event import ResponsesServerEvent
from pydantic import TypeAdapter

from spark_cli.engine.core.config import parse_fault

EVENTS: TypeAdapter[Any] = TypeAdapter(ResponsesServerEvent)
FAST = {"brains": echo_brains, "tps": 50000, "ttft_ms": 0}


def sdk(engine: Any, **kwargs: Any) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=engine.url + "/v1", api_key="test-token", max_retries=0,
                       **kwargs)


async def _collect(conn: Any, until: set[str]) -> list[Any]:
    events = []
    async for event in conn:
        EVENTS.validate_python(json.loads(event.to_json()))
        events.append(event)
        if event.type in until:
            return events
    raise AssertionError("the connection closed first")


async def test_sdk_websocket_stream_and_chaining(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    async with sdk(engine) as client, client.responses.connect() as conn:
        await conn.response.create(model="spark-rules", input="over the socket")
        events = await _collect(conn, {"response.completed"})
        text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
        assert text == "over the socket"
        done = events[-1].response
        assert done.status == "completed"
        assert done.output_text == "over the socket"
        assert done.usage is not None and done.usage.output_tokens > 0
        await conn.response.create(model="spark-rules", input="history",
                                   previous_response_id=done.id)
        second = await _collect(conn, {"response.completed"})
        assert second[-1].response.output_text.startswith("user:over the socket")


async def test_sdk_parses_steer_and_incomplete(engine_factory: Any) -> None:
    engine = await engine_factory(brains=echo_brains, tps=500, ttft_ms=0)
    async with sdk(engine) as client, client.responses.connect() as conn:
        await conn.response.create(model="m", input="forever")
        first = await _collect(conn, {"response.output_text.delta"})
        old = first[0].response.id
        await conn.response.steer(input="history", previous_response_id=old)
        events = await _collect(conn, {"response.incomplete"})
        accepted = [e for e in events if e.type == "response.steer.accepted"]
        assert accepted and accepted[0].steer.previous_response_id == old
        assert events[-1].response.incomplete_details.reason == "steered"
        successor = await _collect(conn, {"response.completed"})
        assert successor[0].type == "response.created"
        assert successor[0].response.previous_response_id == old


async def test_sdk_parses_errors_and_queued(engine_factory: Any) -> None:
    engine = await engine_factory(brains=echo_brains, tps=500, ttft_ms=0, max_streams=1)
    async with sdk(engine) as client, client.responses.connect() as conn:
        await conn.response.create(model="m", input="x", previous_response_id="resp_missing")
        error = (await _collect(conn, {"error"}))[-1]
        assert error.code == "previous_response_not_found"
        await conn.response.create(model="m", input="lines:3", stream_id="a")
        await conn.response.create(model="m", input="y", stream_id="b")
        events = await _collect(conn, {"response.queued"})
        assert events[-1].response.status == "queued"
        await conn.send({"type": "response.steer", "previous_response_id": "resp_gone",
                         "input": "z"})
        failed = await _collect(conn, {"response.steer.failed"})
        assert failed[-1].error.code == "response_not_found"


async def test_sdk_http_responses_stream(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    async with sdk(engine) as client:
        stream = await client.responses.create(model="spark-rules", input="over sse",
                                               stream=True)
        kinds, text = [], ""
        async for event in stream:
            kinds.append(event.type)
            if event.type == "response.output_text.delta":
                text += event.delta
        assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
        assert text == "over sse"
        response = await client.responses.create(model="spark-rules", input="plain")
        assert response.output_text == "plain"


async def test_sdk_chat_completions_stream(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    async with sdk(engine) as client:
        stream = await client.chat.completions.create(
            model="anything", messages=[{"role": "user", "content": "chat over sse"}],
            stream=True, stream_options={"include_usage": True},
        )
        text, usage = "", None
        async for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                text += chunk.choices[0].delta.content
            if chunk.usage is not None:
                usage = chunk.usage
        assert text == "chat over sse"
        assert usage is not None and usage.completion_tokens > 0
        completion = await client.chat.completions.create(
            model="anything", messages=[{"role": "user", "content": "once"}])
        assert completion.choices[0].message.content == "once"


async def test_sdk_sees_429_as_rate_limit_error(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST, faults=parse_fault("429:1"))
    async with sdk(engine) as client:
        with pytest.raises(RateLimitError):
            await client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "x"}])


async def test_sdk_sees_and_streams_the_deep_model(engine_factory: Any) -> None:
    engine = await engine_factory(tps=50000, ttft_ms=0, deep_tps=5000, deep_ttft_ms=5)
    files = "app.py\n```python\ndef load(p):\n    return p\n\n\nload(1)\n```\n"
    async with sdk(engine) as client:
        models = [m async for m in client.models.list()]
        deep = next(m for m in models if m.id == "spark-deep")
        assert deep.owned_by == "spark"
        async with client.responses.connect() as conn:
            await conn.response.create(model="spark-deep",
                                       input="rename load to read\n\n" + files)
            events = await _collect(conn, {"response.completed"})
        done = events[-1].response
        assert done.model == "spark-deep" and done.status == "completed"
        assert done.output_text.startswith("I read 1 file (5 lines)")
        assert "Plan:\n1. Rename `load` to `read` in app.py." in done.output_text
        stream = await client.chat.completions.create(
            model="spark-deep", messages=[{"role": "user", "content": "explain\n\n" + files}],
            stream=True)
        text = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
        assert "**app.py** — python, 5 lines." in text


CODEX_TOOLS = {"type": "additional_tools", "id": "at_1", "role": "developer", "tools": [
    {"type": "namespace", "name": "clock", "description": "Tools for time.", "tools": [
        {"type": "function", "name": "sleep", "description": "Pause.", "strict": False,
         "parameters": {"type": "object", "properties": {"duration_ms": {"type": "number"}}}},
        {"type": "custom", "name": "exec", "format": {"type": "text"}}]}]}
"""An ``additional_tools`` input item as Codex CLI sends it (its own model slugs), typed by
the SDK's beta ``AdditionalTools`` input item."""


def _beta_text(response: Any) -> str:
    """A beta response's answer (``BetaResponse`` has no ``output_text``)."""
    return "".join(part.text for item in response.output for part in item.content)


def _codex_input(text: str) -> list[Any]:
    return [CODEX_TOOLS, {"type": "message", "role": "developer", "content": "be brief"},
            {"type": "message", "role": "user", "content": text}]


async def test_sdk_beta_additional_tools_over_sse_and_websocket(engine_factory: Any) -> None:
    """The tools are accepted and set aside: the brain sees the messages only."""
    engine = await engine_factory(**FAST)
    async with sdk(engine) as client:
        stream = await client.beta.responses.create(
            model="gpt-6.2-sol", input=_codex_input("history"), stream=True)
        events = [event async for event in stream]
        assert events[-1].type == "response.completed"
        assert _beta_text(events[-1].response) == "developer:be brief | user:history"
        async with client.beta.responses.connect() as conn:
            await conn.response.create(model="gpt-6.2-sol", input=_codex_input("history"),
                                       tools=[{"type": "web_search"}])
            done = (await _collect(conn, {"response.completed"}))[-1].response
            assert _beta_text(done) == "developer:be brief | user:history"


async def test_sdk_beta_malformed_additional_tools_is_a_400(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    broken = {**CODEX_TOOLS, "tools": [{"type": "namespace", "name": "clock",
                                        "description": "", "tools": [{"type": "function"}]}]}
    async with sdk(engine) as client:
        with pytest.raises(BadRequestError) as refused:
            await client.beta.responses.create(model="gpt-6.2-sol", input=[broken])
        assert refused.value.param == "input[0].tools[0].tools[0].name"
        async with client.beta.responses.connect() as conn:
            await conn.response.create(model="gpt-6.2-sol", input=[{**broken, "role": "user"}])
            error = (await _collect(conn, {"error"}))[-1]
            assert (error.code, error.param) == ("invalid_value", "input[0].role")
            await conn.response.create(model="gpt-6.2-sol", input=_codex_input("still here"))
            done = (await _collect(conn, {"response.completed"}))[-1].response
            assert _beta_text(done) == "still here"
