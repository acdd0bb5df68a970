"""ResponsesSSEChannel: the Responses API over HTTP SSE (event: + data:, no [DONE])."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from spark_cli.protocol.channel import (
    ChannelError,
    ChannelEvent,
    Message,
    RequestSent,
    ResponseStarted,
    TextDelta,
    TurnFinished,
    TurnRequest,
    UsageReported,
    WaitingToRetry,
)
from spark_cli.transport.sse.http_responses import ResponsesSSEChannel

BASE = "https://api.example.test/v1"
KEY = "sk-proj-abcdefghijklmnop"


def event(kind: str, **fields: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **fields})}\n\n"


def body(*events: str) -> bytes:
    return "".join(events).encode()


COMPLETED = body(
    event("response.created", response={"id": "resp_9", "status": "in_progress"}),
    event("response.in_progress", response={"id": "resp_9"}),
    event("response.output_item.added", item={"type": "message"}),
    event("response.output_text.delta", delta="Hi", sequence_number=3),
    event("response.output_text.delta", delta="!", sequence_number=4),
    event("response.output_text.done", text="Hi!"),
    event(
        "response.completed",
        response={
            "id": "resp_9",
            "status": "completed",
            "usage": {"input_tokens": 5, "output_tokens": 2},
        },
    ),
)

REQUEST = TurnRequest("gpt-x", (Message("user", "hi"),), instructions="short", max_output_tokens=9)


def run(*responses: httpx.Response) -> tuple[ResponsesSSEChannel, list[httpx.Request]]:
    seen: list[httpx.Request] = []
    queue = list(responses)

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return queue.pop(0)

    return ResponsesSSEChannel(BASE, KEY, transport=httpx.MockTransport(handler)), seen


async def collect(ch: ResponsesSSEChannel) -> list[ChannelEvent]:
    async with asyncio.timeout(10):
        return [e async for e in ch.stream(REQUEST)]


async def test_a_turn_posts_to_responses_and_folds_the_events() -> None:
    ch, seen = run(httpx.Response(200, content=COMPLETED))
    events = await collect(ch)
    await ch.aclose()
    assert [type(e) for e in events] == [
        RequestSent,
        ResponseStarted,
        TextDelta,  # the body came in one piece: its deltas as one
        UsageReported,
        TurnFinished,
    ]
    assert events[-1] == TurnFinished("completed", None, "resp_9")
    (req,) = seen
    assert str(req.url) == f"{BASE}/responses"
    assert json.loads(req.content) == {
        "model": "gpt-x",
        "input": [{"type": "message", "role": "user", "content": "hi"}],
        "stream": True,
        "store": False,
        "instructions": "short",
        "max_output_tokens": 9,
    }


async def test_incomplete_carries_its_reason() -> None:
    ch, _ = run(
        httpx.Response(
            200,
            content=body(
                event("response.created", response={"id": "r"}),
                event("response.output_text.delta", delta="x"),
                event(
                    "response.incomplete",
                    response={"id": "r", "incomplete_details": {"reason": "max_output_tokens"}},
                ),
            ),
        )
    )
    events = await collect(ch)
    await ch.aclose()
    assert events[-1] == TurnFinished("incomplete", "max_output_tokens", "r")


async def test_failed_is_a_failed_turn_with_the_message() -> None:
    ch, _ = run(
        httpx.Response(
            200,
            content=body(
                event("response.created", response={"id": "r"}),
                event(
                    "response.failed",
                    response={
                        "id": "r",
                        "error": {"code": "server_error", "message": "model crashed"},
                    },
                ),
            ),
        )
    )
    events = await collect(ch)
    await ch.aclose()
    assert events[-1] == TurnFinished("failed", "model crashed", "r")


async def test_a_stream_without_a_terminal_event_is_an_error() -> None:
    ch, _ = run(
        httpx.Response(
            200,
            content=body(
                event("response.created", response={"id": "r"}),
                event("response.output_text.delta", delta="x"),
            ),
        )
    )
    cut = r"after 1 character of output \(about 1 token\) before the response finished"
    with pytest.raises(ChannelError, match=cut):
        await collect(ch)
    await ch.aclose()


async def test_an_error_event_before_output_is_retried() -> None:
    limited = body(
        event(
            "error",
            status=429,
            error={
                "code": "rate_limit_exceeded",
                "message": "slow down",
                "headers": {"retry-after-ms": "25"},
            },
        )
    )
    ch, seen = run(httpx.Response(200, content=limited), httpx.Response(200, content=COMPLETED))
    events = await collect(ch)
    await ch.aclose()
    assert [e.seconds for e in events if isinstance(e, WaitingToRetry)] == [pytest.approx(0.025)]
    assert len(seen) == 2


async def test_a_429_status_with_headers_is_retried() -> None:
    ch, _ = run(
        httpx.Response(
            429,
            headers={"retry-after-ms": "15"},
            json={"error": {"message": "Rate limit", "code": "rate_limit_exceeded"}},
        ),
        httpx.Response(200, content=COMPLETED),
    )
    events = await collect(ch)
    await ch.aclose()
    assert [e.seconds for e in events if isinstance(e, WaitingToRetry)] == [pytest.approx(0.015)]


async def test_context_length_is_not_retried() -> None:
    ch, seen = run(
        httpx.Response(
            400,
            json={
                "error": {
                    "message": "Your input exceeds the context window of this model.",
                    "type": "invalid_request_error",
                    "code": "context_length_exceeded",
                }
            },
        )
    )
    with pytest.raises(ChannelError) as info:
        await collect(ch)
    await ch.aclose()
    assert info.value.kind == "context_length"
    assert len(seen) == 1


async def test_malformed_data_is_a_protocol_error() -> None:
    ch, _ = run(httpx.Response(200, content=b"event: response.created\ndata: {oops\n\n"))
    with pytest.raises(ChannelError) as info:
        await collect(ch)
    await ch.aclose()
    assert info.value.kind == "protocol"
