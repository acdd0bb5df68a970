"""Function calls from the bundled engine, read by the official ``openai`` SDK.

Every WebSocket and SSE event is validated strictly against the SDK's own
``ResponsesServerEvent`` union; the SDK's stream helpers collect the calls
(Responses) and accumulate ``tool_calls`` (Chat), and its answers chain back.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai import AsyncOpenAI, BadRequestError
from openai.types.responses.responses_server_event import ResponsesServerEvent
from pydantic import TypeAdapter
from tool_brain import CHAT_TOOLS, READ_ARGS, SEARCH_ARGS, TOOLS, tool_brains

EVENTS: TypeAdapter[Any] = TypeAdapter(ResponsesServerEvent)
FAST = {"brains": tool_brains, "tps": 50000, "ttft_ms": 0}


def sdk(engine: Any) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=engine.url + "/v1", api_key="test-token", max_retries=0)


def _kinds(events: list[Any]) -> list[str]:
    """The event types with runs of deltas folded into one."""
    out: list[str] = []
    for event in events:
        if not (event.type.endswith(".delta") and out and out[-1] == event.type):
            out.append(event.type)
    return out


EXPECTED = [
    "response.created", "response.in_progress",
    "response.output_item.added", "response.content_part.added", "response.output_text.delta",
    "response.output_text.done", "response.content_part.done", "response.output_item.done",
    "response.output_item.added", "response.function_call_arguments.delta",
    "response.function_call_arguments.done", "response.output_item.done",
    "response.output_item.added", "response.function_call_arguments.delta",
    "response.function_call_arguments.done", "response.output_item.done",
    "response.completed",
]


def _check_calls(output: list[Any]) -> list[Any]:
    calls = [item for item in output if item.type == "function_call"]
    assert [(c.name, c.arguments) for c in calls] == [("search", SEARCH_ARGS),
                                                      ("read_file", READ_ARGS)]
    assert all(c.call_id.startswith("call_") and c.id.startswith("fc_") for c in calls)
    assert all(c.status == "completed" for c in calls)
    return calls


async def test_sdk_responses_sse_collects_the_calls_and_chains(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    async with sdk(engine) as client:
        async with client.responses.stream(model="m", input="rename it", tools=TOOLS) as stream:
            events = [event async for event in stream]
            final = await stream.get_final_response()
        assert _kinds(events) == EXPECTED
        assert [e.sequence_number for e in events] == list(range(len(events)))
        calls = _check_calls(final.output)
        assert final.output[0].type == "message" and final.output_text == "Let me look first.\n"
        assert [i.type for i in final.output] == ["message", "function_call", "function_call"]
        deltas = [e for e in events if e.type == "response.function_call_arguments.delta"]
        assert {(d.item_id, d.output_index) for d in deltas} == {(calls[0].id, 1),
                                                                 (calls[1].id, 2)}
        done = [e for e in events if e.type == "response.function_call_arguments.done"]
        assert [(d.arguments, d.output_index) for d in done] == [(SEARCH_ARGS, 1), (READ_ARGS, 2)]
        follow = await client.responses.create(
            model="m", previous_response_id=final.id, tools=TOOLS,
            input=[{"type": "function_call_output", "call_id": c.call_id, "output": c.name + "!"}
                   for c in calls])
        assert follow.output_text == "outputs: search=search!; read_file=read_file!"


async def test_sdk_responses_create_stream_events_validate(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    async with sdk(engine) as client:
        stream = await client.responses.create(model="m", input="rename it", tools=TOOLS,
                                               stream=True)
        events = [event async for event in stream]
        for event in events:
            EVENTS.validate_python(json.loads(event.to_json()))
        assert _kinds(events) == EXPECTED
        stream = await client.responses.create(model="m", input="no preamble", tools=TOOLS,
                                               stream=True)
        events = [event async for event in stream]
        assert _kinds(events)[:3] == ["response.created", "response.in_progress",
                                      "response.output_item.added"]
        assert events[2].item.type == "function_call" and events[2].output_index == 0
        assert events[2].item.arguments == ""
        final = events[-1].response
        assert [i.type for i in final.output] == ["function_call", "function_call"]
        _check_calls(final.output)


async def test_sdk_websocket_calls_then_outputs_only(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    async with sdk(engine) as client, client.responses.connect() as conn:
        await conn.response.create(model="m", input="rename it", tools=TOOLS)
        events = []
        async for event in conn:
            EVENTS.validate_python(json.loads(event.to_json()))
            events.append(event)
            if event.type == "response.completed":
                break
        assert _kinds(events) == EXPECTED
        calls = _check_calls(events[-1].response.output)
        await conn.response.create(
            model="m", previous_response_id=events[-1].response.id, tools=TOOLS,
            input=[{"type": "function_call_output", "call_id": c.call_id, "output": "ok"}
                   for c in calls])
        async for event in conn:
            if event.type == "response.completed":
                assert event.response.output_text == "outputs: search=ok; read_file=ok"
                break
        await conn.response.create(
            model="m", previous_response_id=event.response.id, tools=TOOLS,
            input=[{"type": "function_call_output", "call_id": "call_nope", "output": "x"}])
        async for event in conn:
            assert event.type == "error"
            assert event.param == "input" and "call_nope" in event.message
            break


async def test_sdk_chat_stream_accumulates_tool_calls(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    messages: list[Any] = [{"role": "user", "content": "rename it"}]
    async with sdk(engine) as client:
        async with client.chat.completions.stream(model="m", messages=messages,
                                                  tools=CHAT_TOOLS) as stream:
            chunks = [event async for event in stream]
            final = await stream.get_final_completion()
        choice = final.choices[0]
        assert choice.finish_reason == "tool_calls"
        assert choice.message.content == "Let me look first.\n"
        calls = choice.message.tool_calls
        assert [(c.function.name, c.function.arguments) for c in calls] == [
            ("search", SEARCH_ARGS), ("read_file", READ_ARGS)]
        assert all(c.id.startswith("call_") and c.type == "function" for c in calls)
        done = [e for e in chunks if e.type == "tool_calls.function.arguments.done"]
        assert [e.arguments for e in done] == [SEARCH_ARGS, READ_ARGS]
        messages.append(choice.message.model_dump(exclude_none=True))
        messages += [{"role": "tool", "tool_call_id": c.id, "content": "seen"} for c in calls]
        answer = await client.chat.completions.create(model="m", messages=messages,
                                                      tools=CHAT_TOOLS)
        assert answer.choices[0].message.content == "outputs: search=seen; read_file=seen"
        assert answer.choices[0].finish_reason == "stop"


async def test_sdk_chat_non_streamed_tool_calls(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    async with sdk(engine) as client:
        answer = await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "no preamble"}], tools=CHAT_TOOLS,
            parallel_tool_calls=False)
        choice = answer.choices[0]
        assert choice.finish_reason == "tool_calls" and choice.message.content is None
        assert [c.function.name for c in choice.message.tool_calls] == ["search"]
        with pytest.raises(BadRequestError) as refused:
            await client.chat.completions.create(
                model="m", tools=CHAT_TOOLS,
                messages=[{"role": "user", "content": "x"},
                          {"role": "tool", "tool_call_id": "call_x", "content": "y"}])
        assert refused.value.param == "messages[1].role"


async def test_tool_choice_none_and_no_tools_keep_todays_answer(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    async with sdk(engine) as client:
        none = await client.responses.create(model="m", input="x", tools=TOOLS,
                                             tool_choice="none")
        assert none.output_text == "no tools" and none.tool_choice == "none"
        plain = await client.responses.create(model="m", input="x")
        assert plain.output_text == "no tools" and plain.tools == []


async def test_sdk_http_output_for_an_unknown_call_is_a_400(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    async with sdk(engine) as client:
        with pytest.raises(BadRequestError) as refused:
            await client.responses.create(model="m", tools=TOOLS, input=[
                {"role": "user", "content": "x"},
                {"type": "function_call_output", "call_id": "call_zz", "output": "y"}])
        assert refused.value.param == "input"
        assert "No tool call found for function call output with call_id call_zz" in str(
            refused.value)
        replay = await client.responses.create(model="m", tools=TOOLS, input=[
            {"role": "user", "content": "x"},
            {"type": "function_call", "call_id": "call_zz", "name": "search",
             "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_zz", "output": "y"}])
        assert replay.output_text == "outputs: search=y"
