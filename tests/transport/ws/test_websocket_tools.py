"""Function calling over the Responses WebSocket, against a scripted server in OpenAI's shapes.

The server's events come from the official SDK's types (:mod:`tests.transport.openai_shapes`);
the follow-up a caller sends is built exactly as ``protocol.channel``'s "Tools" says.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection

from spark_cli.protocol.channel import (
    ChannelError,
    ChannelEvent,
    ConversationItem,
    Message,
    Reconnected,
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
from spark_cli.transport.ws.websocket import ResponsesWebSocketChannel
from tests.transport.openai_shapes import ResponseScript
from tests.transport.ws.test_websocket_channel import kinds_of

Frame = dict[str, Any]
KEY = "sk-test-0123456789abcdef"
SEARCH = ToolSpec("search", "Search the repo.", {
    "type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]})
READ = ToolSpec("read_file", "Read a file.", {
    "type": "object",
    "properties": {"path": {"type": "string"}, "start_line": {"type": "integer"}},
    "required": ["path"]})
TOOLS = (SEARCH, READ)
TOOLS_WIRE = [
    {"type": "function", "name": "search", "description": "Search the repo.",
     "parameters": SEARCH.parameters, "strict": False},
    {"type": "function", "name": "read_file", "description": "Read a file.",
     "parameters": READ.parameters, "strict": False},
]
ASK = Message("user", "the tax rate should be 25%")


def calling(*, preamble: bool = True) -> list[Frame]:
    """Turn 1: (a preamble,) then two calls, arguments split mid-escape."""
    script = ResponseScript("resp_1").created()
    if preamble:
        script.message("Let me ", "look.")
    script.call("search", '{"pattern": "TAX_\\u00', 'e9"}', call_id="call_a", item_id="fc_a")
    script.call("read_file", '{"path": "src/\\', '"q\\".py"}', call_id="call_b", item_id="fc_b")
    return script.completed()


def answering() -> list[Frame]:
    return ResponseScript("resp_2").created().message("Done.").completed()


def scripted(*turns: list[Frame]) -> Any:
    """A server answering the n-th generating ``response.create`` with ``turns[n]`` (the last
    repeats); a warm-up (``generate: false``) is answered at once as ``warm_1``."""
    answered = [0]

    async def behaviour(ws: ServerConnection, number: int, frame: Frame, state: Any) -> None:
        if frame["type"] != "response.create":
            return
        if frame.get("generate") is False:
            await ws.send(json.dumps({"type": "response.created", "response": {"id": "warm_1"}}))
            await ws.send(json.dumps({"type": "response.completed",
                                      "response": {"id": "warm_1"}}))
            return
        script = turns[min(answered[0], len(turns) - 1)]
        answered[0] += 1
        for event in script:
            await ws.send(json.dumps(event))

    return behaviour


def channel(url: str) -> ResponsesWebSocketChannel:
    return ResponsesWebSocketChannel(url, KEY, idle_timeout=2.0, warm_spare=False)


async def collect(ch: ResponsesWebSocketChannel, req: TurnRequest) -> list[ChannelEvent]:
    async with asyncio.timeout(10):
        return [event async for event in ch.stream(req)]


def follow_up(first: TurnRequest, events: list[ChannelEvent]) -> TurnRequest:
    """The next request as the contract builds it: text, the calls, one output per call."""
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    calls = [e.call for e in events if isinstance(e, ToolCallCompleted)]
    items: list[ConversationItem] = [*first.messages]
    if text:
        items.append(Message("assistant", text))
    items += calls
    items += [ToolOutput(c.call_id, f"result of {c.name}") for c in calls]
    return TurnRequest(first.model, tuple(items), instructions=first.instructions,
                       tools=first.tools)


FIRST = TurnRequest("gpt-5.1-codex-mini", (ASK,), instructions="be brief", tools=TOOLS)
OUTPUTS = [
    {"type": "function_call_output", "call_id": "call_a", "output": "result of search"},
    {"type": "function_call_output", "call_id": "call_b", "output": "result of read_file"},
]


async def test_a_tool_round_yields_the_calls_and_the_follow_up_sends_only_outputs(
    ws_server: Any,
) -> None:
    async with ws_server(scripted(calling(), answering())) as srv:
        ch = channel(srv.url)
        first = await collect(ch, FIRST)
        second_request = follow_up(FIRST, first)
        second = await collect(ch, second_request)
        await ch.aclose()
    assert kinds_of(first) == [  # the two deltas merged when both were in before the read
        RequestSent, ResponseStarted, TextDelta,
        ToolCallOpened, ToolCallCompleted, ToolCallOpened, ToolCallCompleted,
        UsageReported, TurnFinished]
    assert [e for e in first if isinstance(e, ToolCallCompleted)] == [
        ToolCallCompleted(ToolCall("call_a", "search", '{"pattern": "TAX_\\u00e9"}', "fc_a")),
        ToolCallCompleted(ToolCall("call_b", "read_file", '{"path": "src/\\"q\\".py"}', "fc_b")),
    ]
    assert first[-1] == TurnFinished("completed", None, "resp_1")
    assert "".join(e.text for e in second if isinstance(e, TextDelta)) == "Done."
    (_, create_1), (n2, create_2) = srv.creates()
    assert create_1 == {
        "type": "response.create", "model": "gpt-5.1-codex-mini",
        "input": [{"type": "message", "role": "user", "content": ASK.content}],
        "tools": TOOLS_WIRE, "instructions": "be brief", "store": False}
    assert create_2 == {
        "type": "response.create", "model": "gpt-5.1-codex-mini",
        "previous_response_id": "resp_1", "input": OUTPUTS,
        "tools": TOOLS_WIRE, "instructions": "be brief", "store": False}
    assert n2 == 1 and srv.handshakes == 1


async def test_calls_without_a_preamble_chain_too(ws_server: Any) -> None:
    async with ws_server(scripted(calling(preamble=False), answering())) as srv:
        ch = channel(srv.url)
        first = await collect(ch, FIRST)
        await collect(ch, follow_up(FIRST, first))
        await ch.aclose()
    assert not any(isinstance(e, TextDelta) for e in first)
    (_, _), (_, create_2) = srv.creates()
    assert create_2["previous_response_id"] == "resp_1" and create_2["input"] == OUTPUTS


async def test_a_fresh_connection_replays_everything_calls_included(ws_server: Any) -> None:
    async with ws_server(scripted(calling(), answering())) as srv:
        ch = channel(srv.url)
        first = await collect(ch, FIRST)
        await ch.aclose()
        fresh = channel(srv.url)  # a new connection holds nothing
        await collect(fresh, follow_up(FIRST, first))
        await fresh.aclose()
    (_, create_2) = srv.creates()[-1]
    assert "previous_response_id" not in create_2
    assert create_2["input"] == [
        {"type": "message", "role": "user", "content": ASK.content},
        {"type": "message", "role": "assistant", "content": "Let me look."},
        {"type": "function_call", "call_id": "call_a", "name": "search",
         "arguments": '{"pattern": "TAX_\\u00e9"}'},
        {"type": "function_call", "call_id": "call_b", "name": "read_file",
         "arguments": '{"path": "src/\\"q\\".py"}'},
        *OUTPUTS,
    ]


async def test_a_follow_up_that_differs_from_what_the_server_holds_replays_whole(
    ws_server: Any,
) -> None:
    async with ws_server(scripted(calling(), answering())) as srv:
        ch = channel(srv.url)
        first = await collect(ch, FIRST)
        wrong = [e for e in first if not isinstance(e, TextDelta)]  # the preamble left out
        await collect(ch, follow_up(FIRST, wrong))
        await ch.aclose()
    (_, create_2) = srv.creates()[-1]
    assert "previous_response_id" not in create_2
    assert [i["type"] for i in create_2["input"]] == [
        "message", "function_call", "function_call", "function_call_output",
        "function_call_output"]


async def test_warm_up_then_a_tool_round_stays_chained(ws_server: Any) -> None:
    async with ws_server(scripted(calling(), answering())) as srv:
        ch = channel(srv.url)
        await ch.warm(TurnRequest(FIRST.model, (), instructions="be brief", tools=TOOLS))
        first = await collect(ch, FIRST)
        await collect(ch, follow_up(FIRST, first))
        await ch.aclose()
    (_, warm), (_, create_1), (_, create_2) = srv.creates()
    assert warm["generate"] is False and warm["tools"] == TOOLS_WIRE
    assert create_1["previous_response_id"] == "warm_1"
    assert create_2["previous_response_id"] == "resp_1" and create_2["input"] == OUTPUTS


async def test_a_drop_after_a_call_started_is_not_retried(ws_server: Any) -> None:
    started_only = calling(preamble=False)[:3]  # created, the call's item, one argument piece

    async def drop(ws: ServerConnection, number: int, frame: Frame, state: Any) -> None:
        for event in started_only:
            await ws.send(json.dumps(event))
        await ws.close(1011, "overloaded")

    async with ws_server(drop) as srv:
        ch = channel(srv.url)
        events: list[ChannelEvent] = []
        with pytest.raises(ChannelError) as caught:
            async with asyncio.timeout(10):
                async for event in ch.stream(FIRST):
                    events.append(event)
        await ch.aclose()
    assert caught.value.kind == "connection"
    assert events[-1] == ToolCallOpened("call_a", "search")
    assert len(srv.creates()) == 1  # output had started: the caller decides


async def test_stop_mid_call_never_completes_it(ws_server: Any) -> None:
    async with ws_server(scripted(calling(preamble=False))) as srv:
        ch = channel(srv.url)
        events: list[ChannelEvent] = []
        async with asyncio.timeout(10):
            async for event in ch.stream(FIRST):
                events.append(event)
                if isinstance(event, ToolCallOpened):
                    await ch.stop()
        after = await collect(ch, FIRST)
        await ch.aclose()
    assert not any(isinstance(e, ToolCallCompleted) for e in events)
    assert events[-1].status == "cancelled"  # type: ignore[union-attr]
    assert isinstance(after[0], Reconnected)
    (_, replay) = srv.creates()[-1]
    assert "previous_response_id" not in replay


@pytest.mark.parametrize(("tools", "code"), [(TOOLS, "tools_unsupported"),
                                             ((), "invalid_request_error")])
async def test_an_error_event_refusing_tools_says_to_run_without_them(
    ws_server: Any, tools: tuple[ToolSpec, ...], code: str,
) -> None:
    async def refuse(ws: ServerConnection, number: int, frame: Frame, state: Any) -> None:
        await ws.send(json.dumps({"type": "error", "status": 400, "error": {
            "type": "invalid_request_error", "code": None, "param": "tools",
            "message": "registry.ollama.ai/library/gemma3:4b does not support tools"}}))

    async with ws_server(refuse) as srv:
        ch = channel(srv.url)
        with pytest.raises(ChannelError) as caught:
            await collect(ch, TurnRequest("gemma3:4b", (ASK,), tools=tools))
        await ch.aclose()
    error = caught.value
    assert error.kind == "bad_request" and error.code == code and not error.retryable
    assert ("--no-tools" in error.message) is bool(tools)
    assert "does not support tools" in error.message
