"""Ollama: a request that fits the loaded context goes to /v1, one that needs more to the
native /api/chat with options.num_ctx; the NDJSON stream (text, a tool call, usage, an
error) comes out as every channel's events. The fake server on 127.0.0.1:0 answers with
the shapes Ollama documents (docs/api.md: /api/chat streaming, tool calls, errors)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from spark_cli.protocol.channel import (
    ChannelError,
    Message,
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
from spark_cli.transport.factory import open_channel
from spark_cli.transport.sse.ollama_chat import STEP, native_body

# Ollama's documented stream: one JSON object a line, the last with "done": true
NATIVE = [
    {"model": "qwen2.5-coder", "created_at": "2026-12-06T03:00:00Z",
     "message": {"role": "assistant", "content": "Looking"}, "done": False},
    {"model": "qwen2.5-coder", "created_at": "2026-12-06T03:00:00Z",
     "message": {"role": "assistant", "content": "", "tool_calls": [
         {"function": {"name": "read_file", "arguments": {"path": "app.py"}}}]}, "done": False},
    {"model": "qwen2.5-coder", "created_at": "2026-12-06T03:00:01Z",
     "message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop",
     "total_duration": 4883583458, "prompt_eval_count": 9000, "eval_count": 12},
]
CHAT_SSE = (b'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"hi"},'
            b'"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n')
TOOLS = (ToolSpec("read_file", "Read a file.", {"type": "object", "properties": {}}),)


def ollama_app(asked: list[tuple[str, Any]], native: list[dict[str, Any]]) -> Any:
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        asked.append((scope["path"], json.loads(body)))
        native_path = scope["path"] == "/api/chat"
        payload = (b"".join(json.dumps(line).encode() + b"\n" for line in native)
                   if native_path else CHAT_SSE)
        kind = b"application/x-ndjson" if native_path else b"text/event-stream"
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", kind)]})
        await send({"type": "http.response.body", "body": payload})

    return app


def _request(words: int) -> TurnRequest:
    return TurnRequest("qwen2.5-coder", (Message("user", "word " * words),),
                       instructions="be brief", max_output_tokens=512, tools=TOOLS)


async def _run(base_url: str, request: TurnRequest) -> list[Any]:
    channel = open_channel("ollama", base_url=base_url, api_key=None, loaded=4096,
                           window=32768)
    try:
        async with asyncio.timeout(20):
            return [event async for event in channel.stream(request)]
    finally:
        await channel.aclose()


async def test_a_request_within_the_loaded_context_goes_to_v1(http_server: Any) -> None:
    asked: list[tuple[str, Any]] = []
    async with http_server(ollama_app(asked, NATIVE)) as base_url:
        events = await _run(base_url, _request(100))
    assert [path for path, _ in asked] == ["/v1/chat/completions"]
    assert TextDelta("hi") in events


async def test_a_request_beyond_it_streams_through_api_chat_with_num_ctx(
        http_server: Any) -> None:
    asked: list[tuple[str, Any]] = []
    async with http_server(ollama_app(asked, NATIVE)) as base_url:
        events = await _run(base_url, _request(9000))
    (path, body), = asked
    assert path == "/api/chat"
    assert body["options"]["num_ctx"] % STEP == 0 and 4096 < body["options"]["num_ctx"] <= 32768
    assert body["options"]["num_predict"] == 512 and body["stream"] is True
    assert body["tools"][0]["function"]["name"] == "read_file"
    assert TextDelta("Looking") in events
    started = [e for e in events if isinstance(e, ToolCallOpened)]
    completed = [e for e in events if isinstance(e, ToolCallCompleted)]
    assert [s.name for s in started] == ["read_file"]
    assert json.loads(completed[0].call.arguments) == {"path": "app.py"}
    assert UsageReported(9000, 12) in events
    assert isinstance(events[-1], TurnFinished) and events[-1].status == "completed"


async def test_an_error_line_is_named_an_overflow(http_server: Any) -> None:
    asked: list[tuple[str, Any]] = []
    error = [{"error": "the input length exceeds the context length"}]
    async with http_server(ollama_app(asked, error)) as base_url:
        try:
            await _run(base_url, _request(9000))
        except ChannelError as exc:
            assert exc.kind == "context_length"
        else:
            raise AssertionError("no error")


def test_the_native_body_carries_calls_as_objects_and_names_their_outputs() -> None:
    request = TurnRequest("m", (Message("user", "read it"),
                                ToolCall("call_1", "read_file", '{"path": "a.py"}'),
                                ToolOutput("call_1", "1: x = 1")), max_output_tokens=64)
    body = native_body(request, None, 8192)
    assistant, tool = body["messages"][1], body["messages"][2]
    assert assistant["tool_calls"][0]["function"]["arguments"] == {"path": "a.py"}
    assert assistant["content"] == "" and tool["tool_name"] == "read_file"
    assert body["options"] == {"num_ctx": 8192, "num_predict": 64}
