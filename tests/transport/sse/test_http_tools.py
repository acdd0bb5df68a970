"""Function calling over HTTP SSE: Responses and Chat Completions, OpenAI's shapes and others'.

The streams come from the official SDK's types (:mod:`tests.transport.openai_shapes`);
the follow-up request is built as ``protocol.channel``'s "Tools" says; the refusals of
the ``tools`` field are the words real servers answer with.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from spark_cli.protocol.channel import (
    ChannelError,
    ChannelEvent,
    ConversationItem,
    Message,
    RequestSent,
    ResponseStarted,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
    ToolCallOpened,
    ToolOutput,
    ToolSpec,
    TurnFinished,
    TurnRequest,
    UsageReported,
)
from spark_cli.transport.retry import RetryPolicy
from spark_cli.transport.sse.http_chat import ChatCompletionsChannel
from spark_cli.transport.sse.http_responses import ResponsesSSEChannel
from spark_cli.transport.sse.http_stream import HttpStreamChannel
from tests.transport.openai_shapes import (
    ResponseScript,
    call_piece,
    chat_chunk,
    final_only_call,
    usage_chunk,
)

BASE = "https://api.example.test/v1"
KEY = "sk-proj-abcdefghijklmnop"
SEARCH = ToolSpec("search", "Search the repo.", {
    "type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]})
ASK = Message("user", "the tax rate should be 25%")
FIRST = TurnRequest("m", (ASK,), instructions="be brief", tools=(SEARCH,))
SEARCH_ARGS = '{"pattern": "caf\\u00e9 \\"x\\""}'


class Recorder:
    def __init__(self, *responses: httpx.Response) -> None:
        self.responses = list(responses)
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.bodies.append(json.loads(request.content))
        return self.responses.pop(0) if len(self.responses) > 1 else self.responses[0]


def sse_responses(events: list[dict[str, Any]]) -> httpx.Response:
    text = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    return httpx.Response(200, headers={"content-type": "text/event-stream"},
                          content=text.encode())


def sse_chat(chunks: list[dict[str, Any]], *, done: bool = True) -> httpx.Response:
    text = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
    text += "data: [DONE]\n\n" if done else ""
    return httpx.Response(200, headers={"content-type": "text/event-stream"},
                          content=text.encode())


def channel(kind: type[HttpStreamChannel], recorder: Recorder, **options: Any) -> Any:
    return kind(BASE, KEY, transport=httpx.MockTransport(recorder), **options)


async def collect(ch: Any, req: TurnRequest) -> list[ChannelEvent]:
    async with asyncio.timeout(10):
        return [event async for event in ch.stream(req)]


def follow_up(first: TurnRequest, events: list[ChannelEvent]) -> TurnRequest:
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    calls = [e.call for e in events if isinstance(e, ToolCallCompleted)]
    items: list[ConversationItem] = [*first.messages]
    if text:
        items.append(Message("assistant", text))
    items += calls
    items += [ToolOutput(c.call_id, f"result of {c.name}") for c in calls]
    return TurnRequest(first.model, tuple(items), instructions=first.instructions,
                       tools=first.tools)


# ---- Responses over SSE ----


async def test_responses_sse_folds_a_preamble_and_calls_and_replays_them_next_turn() -> None:
    script = (ResponseScript("resp_1").created().message("Let me look.")
              .call("search", '{"pattern": "caf\\u00', 'e9 \\', '"x\\""}', call_id="call_a",
                    item_id="fc_a"))
    answer = ResponseScript("resp_2").created().message("Done.").completed()
    rec = Recorder(sse_responses(script.completed()), sse_responses(answer))
    ch = channel(ResponsesSSEChannel, rec)
    first = await collect(ch, FIRST)
    await collect(ch, follow_up(FIRST, first))
    await ch.aclose()
    assert [type(e) for e in first] == [RequestSent, ResponseStarted, TextDelta, ToolCallOpened,
                                        ToolCallCompleted, UsageReported, TurnFinished]
    assert first[4] == ToolCallCompleted(ToolCall("call_a", "search", SEARCH_ARGS, "fc_a"))
    tools = [{"type": "function", "name": "search", "description": "Search the repo.",
              "parameters": SEARCH.parameters, "strict": False}]
    assert rec.bodies[0]["tools"] == tools and rec.bodies[1]["tools"] == tools
    assert rec.bodies[1]["input"] == [  # HTTP keeps nothing: the whole conversation again
        {"type": "message", "role": "user", "content": ASK.content},
        {"type": "message", "role": "assistant", "content": "Let me look."},
        {"type": "function_call", "call_id": "call_a", "name": "search",
         "arguments": SEARCH_ARGS},
        {"type": "function_call_output", "call_id": "call_a", "output": "result of search"},
    ]


async def test_responses_sse_calls_only_in_the_final_response_come_before_its_end() -> None:
    late = final_only_call("search", '{"pattern": "x"}', call_id="call_z", item_id="fc_z")
    events = ResponseScript("resp_1").created().completed(output=[late])
    ch = channel(ResponsesSSEChannel, Recorder(sse_responses(events)))
    out = await collect(ch, FIRST)
    await ch.aclose()
    assert [type(e) for e in out] == [RequestSent, ResponseStarted, ToolCallOpened,
                                      ToolCallCompleted, UsageReported, TurnFinished]


# ---- Chat Completions over SSE ----


CHAT_CALLS = [
    chat_chunk(role="assistant", content="Let me look."),
    chat_chunk(tool_calls=[call_piece(0, call_id="call_a", name="search")]),
    chat_chunk(tool_calls=[call_piece(0, arguments='{"pattern": "caf\\u00')]),
    chat_chunk(tool_calls=[call_piece(0, arguments='e9 \\')]),
    chat_chunk(tool_calls=[call_piece(0, arguments='"x\\""}')]),
    chat_chunk(tool_calls=[call_piece(1, call_id="call_b", name="search",
                                      arguments='{"pattern": "y"}')]),
    chat_chunk(finish="tool_calls"),
    usage_chunk(),
]


async def test_chat_calls_complete_before_the_turn_ends_and_travel_back_as_chat_messages(
) -> None:
    rec = Recorder(sse_chat(CHAT_CALLS), sse_chat([chat_chunk(content="Done."),
                                                   chat_chunk(finish="stop")]))
    ch = channel(ChatCompletionsChannel, rec)
    first = await collect(ch, FIRST)
    await collect(ch, follow_up(FIRST, first))
    await ch.aclose()
    assert [type(e) for e in first] == [
        RequestSent, ResponseStarted, TextDelta, ToolCallOpened, ToolCallOpened,
        ToolCallCompleted, ToolCallCompleted, UsageReported, TurnFinished]
    assert [e.call for e in first if isinstance(e, ToolCallCompleted)] == [
        ToolCall("call_a", "search", SEARCH_ARGS), ToolCall("call_b", "search", '{"pattern": "y"}')]
    assert first[-1] == TurnFinished("completed", None, "chatcmpl-1")
    tools = [{"type": "function", "function": {"name": "search", "description": "Search the repo.",
                                               "parameters": SEARCH.parameters}}]
    assert rec.bodies[0]["tools"] == tools
    assert rec.bodies[1]["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": ASK.content},
        {"role": "assistant", "content": "Let me look.", "tool_calls": [
            {"id": "call_a", "type": "function",
             "function": {"name": "search", "arguments": SEARCH_ARGS}},
            {"id": "call_b", "type": "function",
             "function": {"name": "search", "arguments": '{"pattern": "y"}'}}]},
        {"role": "tool", "tool_call_id": "call_a", "content": "result of search"},
        {"role": "tool", "tool_call_id": "call_b", "content": "result of search"},
    ]


async def test_chat_stop_instead_of_tool_calls_and_a_whole_call_in_the_first_chunk() -> None:
    chunks = [chat_chunk(role="assistant", content=None, tool_calls=[
        call_piece(0, call_id="call_a", name="search", arguments='{"pattern": "x"}')]),
        chat_chunk(finish="stop")]
    ch = channel(ChatCompletionsChannel, Recorder(sse_chat(chunks)))
    events = await collect(ch, FIRST)
    await ch.aclose()
    assert [type(e) for e in events] == [RequestSent, ResponseStarted, ToolCallOpened,
                                         ToolCallCompleted, TurnFinished]
    assert events[3] == ToolCallCompleted(ToolCall("call_a", "search", '{"pattern": "x"}'))


async def test_chat_a_stream_cut_after_a_call_started_is_not_retried() -> None:
    rec = Recorder(sse_chat(CHAT_CALLS[:3], done=False))
    ch = channel(ChatCompletionsChannel, rec,
                 retry_policy=RetryPolicy(max_attempts=3, backoff_base=0.001, backoff_cap=0.001))
    events: list[ChannelEvent] = []
    with pytest.raises(ChannelError, match="before the response finished"):
        async with asyncio.timeout(10):
            async for event in ch.stream(FIRST):
                events.append(event)
    await ch.aclose()
    assert events[-1] == ToolCallOpened("call_a", "search")
    assert len(rec.bodies) == 1


# ---- servers that refuse the tools field ----


REFUSALS = [
    pytest.param(400, {"error": {"message": "registry.ollama.ai/library/gemma3:4b does not "
                                 "support tools", "type": "api_error", "param": None,
                                 "code": None}}, id="ollama"),
    pytest.param(400, {"object": "error", "message": '"auto" tool choice requires '
                       "--enable-auto-tool-choice and --tool-call-parser to be set",
                       "type": "BadRequestError", "param": None, "code": 400}, id="vllm"),
    pytest.param(400, {"error": {"code": 400, "message": "tools param requires --jinja flag",
                                 "type": "invalid_request_error"}}, id="llama.cpp"),
    pytest.param(404, {"error": {"message": "No endpoints found that support tool use. To learn "
                                 "more about provider routing, visit: "
                                 "https://openrouter.ai/docs/provider-routing", "code": 404}},
                 id="openrouter"),
    pytest.param(422, {"detail": [{"type": "extra_forbidden", "loc": ["body", "tools"],
                                   "msg": "Extra inputs are not permitted"}]}, id="fastapi"),
]


@pytest.mark.parametrize(("status", "answer"), REFUSALS)
@pytest.mark.parametrize("kind", [ChatCompletionsChannel, ResponsesSSEChannel])
async def test_a_refused_tools_field_says_to_run_without_tools(
    kind: type[HttpStreamChannel], status: int, answer: dict[str, Any],
) -> None:
    ch = channel(kind, Recorder(httpx.Response(status, json=answer)))
    with pytest.raises(ChannelError) as caught:
        await collect(ch, FIRST)
    await ch.aclose()
    error = caught.value
    assert (error.kind, error.code, error.status) == ("bad_request", "tools_unsupported", status)
    assert "does not accept tools" in error.message and "--no-tools" in error.message
    assert "tools = false" in error.message and not error.retryable
    assert KEY not in error.message


@pytest.mark.parametrize(("status", "answer"), REFUSALS[:1])
async def test_the_same_answer_without_tools_declared_is_an_ordinary_error(
    status: int, answer: dict[str, Any],
) -> None:
    ch = channel(ChatCompletionsChannel, Recorder(httpx.Response(status, json=answer)))
    with pytest.raises(ChannelError) as caught:
        await collect(ch, TurnRequest("m", (ASK,)))
    await ch.aclose()
    assert caught.value.code != "tools_unsupported" and "--no-tools" not in caught.value.message


async def test_other_400s_about_calls_are_not_mistaken_for_a_refusal_of_tools() -> None:
    answer = {"error": {"message": "No tool output found for function call call_a.",
                        "type": "invalid_request_error", "param": "input", "code": None}}
    ch = channel(ResponsesSSEChannel, Recorder(httpx.Response(400, json=answer)))
    with pytest.raises(ChannelError) as caught:
        await collect(ch, FIRST)
    await ch.aclose()
    assert caught.value.code != "tools_unsupported"


async def test_a_refusal_as_an_error_chunk_in_the_stream_is_recognised_too() -> None:
    chunk = {"error": {"message": "registry.ollama.ai/library/x does not support tools",
                       "status": 400}}
    ch = channel(ChatCompletionsChannel, Recorder(sse_chat([chunk], done=False)))
    with pytest.raises(ChannelError) as caught:
        await collect(ch, FIRST)
    await ch.aclose()
    assert caught.value.code == "tools_unsupported"
