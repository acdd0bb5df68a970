"""Prefill is not a stall; a long wait for the first token is never resent blindly; an empty
200 stream (llama-cpp-python's overflow) is asked about once, unstreamed."""

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
    Overflow,
    TextDelta,
    TurnFinished,
    TurnRequest,
    WaitingToRetry,
)
from spark_cli.transport.retry import RetryPolicy
from spark_cli.transport.silence import first_token_limit, prompt_tokens, resend_note
from spark_cli.transport.sse.http_chat import ChatCompletionsChannel

REQUEST = TurnRequest("smol", (Message("user", "hi"),), instructions="be brief",
                      max_output_tokens=64)
# recorded from llama-cpp-python 0.3.36's server (n_ctx 8192), asked without streaming
OVERFLOW_400 = {"error": {
    "message": "This model's maximum context length is 8192 tokens. However, you requested "
               "18046 tokens (18030 in the messages, 16 in the completion). Please reduce the "
               "length of the messages or completion.",
    "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}


def chunk(content: str | None, finish: str | None = None) -> bytes:
    delta = {} if content is None else {"content": content}
    body = {"id": "c1", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return f"data: {json.dumps(body)}\n\n".encode()


def slow_prefill_app(script: dict[str, Any]) -> Any:
    """Headers at once, then ``: ping`` comments for ``prefill`` seconds (a CPU server reading
    the prompt), then the answer; ``stall``: pings and never an answer."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        script.setdefault("requests", 0)
        script["requests"] += 1
        while (await receive()).get("more_body"):
            pass
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/event-stream")]})
        loop = asyncio.get_running_loop()
        until = loop.time() + script.get("prefill", 0.0)
        while script.get("stall") or loop.time() < until:
            await send({"type": "http.response.body", "body": b": ping\n\n", "more_body": True})
            await asyncio.sleep(0.05)  # a server pinging while it prefills
        for piece in (chunk("ok"), chunk(None, "stop"), b"data: [DONE]\n\n"):
            await send({"type": "http.response.body", "body": piece, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


async def collect(ch: Any) -> list[ChannelEvent]:
    async with asyncio.timeout(20):
        return [event async for event in ch.stream(REQUEST)]


async def test_a_prefill_longer_than_the_idle_timeout_is_waited_out(http_server: Any) -> None:
    script: dict[str, Any] = {"prefill": 0.6}
    async with http_server(slow_prefill_app(script)) as base:
        ch = ChatCompletionsChannel(base, None, idle_timeout=0.2)
        events = await collect(ch)
        await ch.aclose()
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "ok"
    assert not [e for e in events if isinstance(e, WaitingToRetry)]
    assert events[-1] == TurnFinished("completed", None, "c1")
    assert script["requests"] == 1  # no retry, nothing resent


async def test_no_first_token_in_time_is_named_and_not_resent(http_server: Any) -> None:
    script: dict[str, Any] = {"stall": True}
    async with http_server(slow_prefill_app(script)) as base:
        ch = ChatCompletionsChannel(base, None, idle_timeout=0.1, first_token_timeout=0.3)
        with pytest.raises(ChannelError) as info:
            await collect(ch)
        await ch.aclose()
    assert info.value.kind == "timeout"
    assert not info.value.retryable
    assert "first_token_timeout" in info.value.message
    assert "not sent again" in info.value.message
    assert script["requests"] == 1


def test_the_first_token_limit_grows_with_the_prompt() -> None:
    small = first_token_limit(REQUEST, None, 10.0)
    big = TurnRequest("m", (Message("user", "x" * 30_000),))
    assert prompt_tokens(big) == 10_000
    assert first_token_limit(big, None, 10.0) > small >= 60.0
    assert first_token_limit(big, 5.0, 10.0) == 10.0  # never below the idle timeout
    assert first_token_limit(big, 300.0, 10.0) == 300.0
    assert resend_note(5800) == "resending the whole prompt, about 5.8k tokens"


class Recorder:
    def __init__(self, *responses: httpx.Response) -> None:
        self.responses = list(responses)
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.bodies.append(json.loads(request.content))
        return self.responses.pop(0)


async def test_an_empty_200_stream_is_asked_once_unstreamed_and_named() -> None:
    rec = Recorder(httpx.Response(200, headers={"content-type": "text/event-stream"},
                                  content=b""),
                   httpx.Response(400, json=OVERFLOW_400))
    ch = ChatCompletionsChannel("http://127.0.0.1:9/v1", None,
                                transport=httpx.MockTransport(rec))
    with pytest.raises(ChannelError) as info:
        await collect(ch)
    await ch.aclose()
    error = info.value
    assert error.kind == "context_length"
    assert error.overflow == Overflow(18046, 8192)
    assert error.message.startswith(
        "the request (18.0k tokens) is larger than the model's window (8.2k)")
    assert len(rec.bodies) == 2  # the stream, then one unstreamed single-token ask
    assert rec.bodies[1]["stream"] is False and rec.bodies[1]["max_tokens"] == 1
    assert "stream_options" not in rec.bodies[1]


async def test_an_empty_200_stream_of_a_server_that_then_answers_is_retried() -> None:
    done = b'data: {"id":"c","choices":[{"index":0,"delta":{"content":"hi"},' \
           b'"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
    rec = Recorder(httpx.Response(200, content=b""),
                   httpx.Response(200, json={"choices": [{"message": {"content": "h"}}]}),
                   httpx.Response(200, headers={"content-type": "text/event-stream"},
                                  content=done))
    ch = ChatCompletionsChannel("http://127.0.0.1:9/v1", None,
                                transport=httpx.MockTransport(rec),
                                retry_policy=RetryPolicy(backoff_base=0.001, backoff_cap=0.001))
    events = await collect(ch)
    await ch.aclose()
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "hi"
    assert [e for e in events if isinstance(e, WaitingToRetry)]


async def test_a_reset_on_the_unstreamed_ask_is_met_with_one_more() -> None:
    """uvicorn closes the failed stream's connection while it sits in the pool: the first
    ask meets a reset, the second (a new connection) gets the 400."""
    answers: list[Any] = [httpx.Response(200, content=b""), httpx.ReadError("reset by peer"),
                          httpx.Response(400, json=OVERFLOW_400)]

    def handler(request: httpx.Request) -> httpx.Response:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    ch = ChatCompletionsChannel("http://127.0.0.1:9/v1", None,
                                transport=httpx.MockTransport(handler))
    with pytest.raises(ChannelError) as info:
        await collect(ch)
    await ch.aclose()
    assert info.value.kind == "context_length"
    assert info.value.overflow == Overflow(18046, 8192)
    assert answers == []
