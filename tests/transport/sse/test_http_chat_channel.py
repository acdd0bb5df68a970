"""ChatCompletionsChannel: exact wire forms via httpx.MockTransport, timing paths via uvicorn."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
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
from spark_cli.transport.fast import on
from spark_cli.transport.retry import RetryPolicy
from spark_cli.transport.sse.http_chat import ChatCompletionsChannel

KEY = "csk-secret-abcdef0123456789"
BASE = "https://api.example.test/v1"


def chunk(content: str | None = None, finish: str | None = None, **extra: Any) -> str:
    delta = {} if content is None else {"content": content}
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }
    return json.dumps(body)


def sse(*datas: str, done: bool = True) -> bytes:
    text = "".join(f"data: {d}\n\n" for d in datas)
    return (text + ("data: [DONE]\n\n" if done else "")).encode()


NORMAL = sse(
    chunk("", role="assistant"),
    chunk("Hel"),
    chunk("lo"),
    chunk(None, "stop"),
    json.dumps(
        {
            "id": "chatcmpl-1",
            "choices": [],
            "usage": {"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9},
            "time_info": {"queue_time": 0.0001, "completion_time": 0.002},
        }
    ),
)


class Recorder:
    def __init__(self, *responses: httpx.Response) -> None:
        self.responses = list(responses)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.responses.pop(0) if len(self.responses) > 1 else self.responses[0]

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.requests]


def ok(body: bytes = NORMAL) -> httpx.Response:
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)


def channel(recorder: Recorder, **options: Any) -> ChatCompletionsChannel:
    return ChatCompletionsChannel(BASE, KEY, transport=httpx.MockTransport(recorder), **options)


REQUEST = TurnRequest(
    "llama-4",
    (Message("user", "hi"), Message("assistant", "yo"), Message("user", "more")),
    instructions="be brief",
    max_output_tokens=64,
)


async def collect(ch: Any, req: TurnRequest = REQUEST) -> list[ChannelEvent]:
    async with asyncio.timeout(10):
        return [event async for event in ch.stream(req)]


def text_of(events: list[ChannelEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


async def test_a_normal_turn_sends_the_standard_body_and_yields_events() -> None:
    rec = Recorder(ok())
    ch = channel(rec)
    events = await collect(ch)
    await ch.aclose()
    assert [type(e) for e in events] == [
        RequestSent,
        ResponseStarted,
        TextDelta,  # the body came in one piece: its deltas as one
        UsageReported,
        TurnFinished,
    ]
    assert text_of(events) == "Hello"
    assert events[-2] == UsageReported(7, 2, {"queue_time": 0.0001, "completion_time": 0.002})
    assert events[-1] == TurnFinished("completed", None, "chatcmpl-1")
    (req,) = rec.requests
    assert str(req.url) == f"{BASE}/chat/completions"
    assert req.headers["authorization"] == f"Bearer {KEY}"
    assert rec.bodies()[0] == {
        "model": "llama-4",
        "messages": [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "yo"},
            {"role": "user", "content": "more"},
        ],
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": 64,
    }
    assert ch.capabilities.steer is False


async def test_text_in_the_first_chunk_is_not_lost() -> None:
    ch = channel(Recorder(ok(sse(chunk("Hi"), chunk(" there", "stop")))))
    events = await collect(ch)
    await ch.aclose()
    assert isinstance(events[1], ResponseStarted)
    assert text_of(events) == "Hi there"


async def test_finish_reason_length_is_incomplete_max_output_tokens() -> None:
    ch = channel(Recorder(ok(sse(chunk("a"), chunk(None, "length")))))
    events = await collect(ch)
    await ch.aclose()
    assert events[-1] == TurnFinished("incomplete", "max_output_tokens", "chatcmpl-1")


async def test_a_stream_that_ends_without_done_or_finish_is_an_error() -> None:
    ch = channel(Recorder(ok(sse(chunk("a"), chunk("b"), done=False))))
    with pytest.raises(ChannelError) as info:
        await collect(ch)
    await ch.aclose()
    assert info.value.kind == "connection"
    assert info.value.message == (
        "connection closed after 2 characters of output (about 1 token) before the response "
        "finished")


async def test_a_drop_mid_stream_is_a_clear_error_not_retried() -> None:
    async def body() -> AsyncIterator[bytes]:
        yield sse(chunk("par"), chunk("tial"), done=False)
        raise httpx.ReadError("connection reset by peer")

    rec = Recorder(httpx.Response(200, content=body()))
    ch = channel(rec)
    seen: list[ChannelEvent] = []
    with pytest.raises(ChannelError) as info:
        async for event in ch.stream(REQUEST):
            seen.append(event)
    await ch.aclose()
    assert text_of(seen) == "partial"
    assert "after 7 characters of output (about 2 tokens)" in info.value.message
    assert len(rec.requests) == 1


async def test_an_error_chunk_before_output_is_retried_with_the_message_delay() -> None:
    error = json.dumps(
        {
            "error": {
                "message": "Rate limit reached. Please try again in 20ms.",
                "type": "rate_limit_error",
                "code": "rate_limit_exceeded",
            }
        }
    )
    rec = Recorder(ok(sse(error, done=False)), ok())
    ch = channel(rec)
    events = await collect(ch)
    await ch.aclose()
    waits = [e for e in events if isinstance(e, WaitingToRetry)]
    assert [w.seconds for w in waits] == [pytest.approx(0.02)]
    assert text_of(events) == "Hello"


async def test_an_error_chunk_after_output_raises() -> None:
    error = json.dumps({"error": {"message": "internal", "code": 500}})
    ch = channel(Recorder(ok(sse(chunk("a"), error, done=False))))
    with pytest.raises(ChannelError) as info:
        await collect(ch)
    await ch.aclose()
    assert info.value.kind == "server"
    assert info.value.status == 500


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after-ms": "40"}, 0.04),
        ({"retry-after": "0.05"}, 0.05),
        ({"x-ratelimit-reset-requests": "30ms", "x-ratelimit-remaining-requests": "0"}, 0.03),
        (
            {
                "x-ratelimit-reset-tokens-minute": "0.06",
                "x-ratelimit-reset-requests-day": "33011.3",
            },
            0.06,
        ),
    ],
)
async def test_429_waits_what_the_headers_say(headers: dict[str, str], expected: float) -> None:
    limited = httpx.Response(
        429,
        headers=headers,
        json={
            "error": {
                "message": "Too many requests",
                "type": "requests",
                "code": "rate_limit_exceeded",
            }
        },
    )
    rec = Recorder(limited, ok())
    ch = channel(rec)
    events = await collect(ch)
    await ch.aclose()
    waits = [e for e in events if isinstance(e, WaitingToRetry)]
    assert [w.seconds for w in waits] == [pytest.approx(expected)]
    assert len(rec.requests) == 2
    assert events[-1].status == "completed"  # type: ignore[union-attr]


async def test_retry_after_as_an_http_date_is_understood() -> None:
    from email.utils import formatdate

    limited = httpx.Response(429, headers={"retry-after": formatdate(0, usegmt=True)})
    ch = channel(Recorder(limited, ok()))
    events = await collect(ch)
    await ch.aclose()
    (wait,) = [e for e in events if isinstance(e, WaitingToRetry)]
    assert wait.seconds == 0.0  # a date in the past: retry at once


async def test_insufficient_quota_is_not_retried() -> None:
    refused = httpx.Response(
        429,
        headers={"retry-after": "1"},
        json={
            "error": {
                "message": "You exceeded your current quota.",
                "type": "insufficient_quota",
                "code": "insufficient_quota",
            }
        },
    )
    rec = Recorder(refused, ok())
    ch = channel(rec)
    with pytest.raises(ChannelError) as info:
        await collect(ch)
    await ch.aclose()
    assert info.value.kind == "quota"
    assert "exceeded your current quota" in info.value.message
    assert len(rec.requests) == 1


async def test_5xx_is_retried_with_backoff() -> None:
    rec = Recorder(httpx.Response(503, text="upstream overloaded"), ok())
    ch = channel(rec, retry_policy=RetryPolicy(backoff_base=0.001, backoff_cap=0.002))
    events = await collect(ch)
    await ch.aclose()
    (wait,) = [e for e in events if isinstance(e, WaitingToRetry)]
    assert 0 < wait.seconds <= 0.002
    assert "upstream overloaded" in wait.reason


async def test_401_is_auth_and_the_key_is_never_in_the_message() -> None:
    refused = httpx.Response(
        401,
        json={
            "error": {
                "message": f"Wrong API Key {KEY}",
                "type": "invalid_request_error",
                "code": "wrong_api_key",
            }
        },
    )
    ch = channel(Recorder(refused))
    with pytest.raises(ChannelError) as info:
        await collect(ch)
    await ch.aclose()
    assert info.value.kind == "auth"
    assert KEY not in str(info.value)


@pytest.mark.parametrize("bad", ["{not json", "[1]"])
async def test_a_malformed_chunk_is_a_protocol_error(bad: str) -> None:
    ch = channel(Recorder(ok(sse(bad))))
    with pytest.raises(ChannelError) as info:
        await collect(ch)
    await ch.aclose()
    assert info.value.kind == "protocol"


async def test_steer_is_refused_clearly() -> None:
    ch = channel(Recorder(ok()))
    with pytest.raises(ChannelError, match="cannot steer"):
        await ch.steer("left")
    await ch.aclose()


# ---- against a real loopback server (uvicorn) ----


def chat_app(script: dict[str, Any]) -> Any:
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["type"] == "http"
        script.setdefault("clients", []).append(scope["client"][1])
        while (await receive()).get("more_body"):
            pass
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        for piece in script.get("pieces", ["a", "b"]):
            await send(
                {
                    "type": "http.response.body",
                    "body": sse(chunk(piece), done=False),
                    "more_body": True,
                }
            )
        if script.get("stall"):
            await asyncio.sleep(script["stall"])  # a server that stalls mid-stream
        await send(
            {"type": "http.response.body", "body": sse(chunk(None, "stop")), "more_body": False}
        )

    return app


async def test_connections_are_reused_across_turns(http_server: Any) -> None:
    script: dict[str, Any] = {}
    async with http_server(chat_app(script)) as base:
        ch = ChatCompletionsChannel(base, None)
        for _ in range(3):
            events = await collect(ch)
            assert text_of(events) == "ab"
        await ch.aclose()
    assert len(script["clients"]) == 3
    assert len(set(script["clients"])) == 1  # one client port: one kept-alive connection


async def test_a_stalled_stream_hits_the_idle_timeout(http_server: Any) -> None:
    async with http_server(chat_app({"stall": 3})) as base:
        ch = ChatCompletionsChannel(base, None, idle_timeout=0.2)
        with pytest.raises(ChannelError) as info:
            await collect(ch)
        await ch.aclose()
    assert info.value.kind == "timeout"
    assert "0.2s after 2 characters of output (about 1 token)" in info.value.message


async def test_stop_closes_the_stream_and_finishes_cancelled(http_server: Any) -> None:
    async with http_server(chat_app({"stall": 3})) as base:
        ch = ChatCompletionsChannel(base, None)
        events: list[ChannelEvent] = []
        async with asyncio.timeout(5):
            async for event in ch.stream(REQUEST):
                events.append(event)
                if isinstance(event, TextDelta):
                    await ch.stop()
        await ch.aclose()
    assert events[-1].status == "cancelled"  # type: ignore[union-attr]
    assert text_of(events) == "a"


async def test_an_unreachable_server_is_a_connection_error() -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    policy = RetryPolicy(max_attempts=2, backoff_base=0.001, backoff_cap=0.001)
    ch = ChatCompletionsChannel(f"http://127.0.0.1:{port}/v1", KEY, retry_policy=policy)
    with pytest.raises(ChannelError) as info:
        await collect(ch)
    await ch.aclose()
    assert info.value.kind == "connection"
    assert "gave up after 2 attempts" in info.value.message


async def test_stop_before_the_response_headers_ends_at_once(http_server: Any) -> None:
    started = asyncio.Event()

    async def slow_headers(scope: dict[str, Any], receive: Any, send: Any) -> None:
        started.set()
        await asyncio.sleep(5)  # a server slow to send its headers

    async with http_server(slow_headers) as base:
        ch = ChatCompletionsChannel(base, None)

        async def stop_soon() -> None:
            await started.wait()
            await ch.stop()

        stopper = asyncio.create_task(stop_soon())
        async with asyncio.timeout(3):  # well under the server's 5 s
            events = [e async for e in ch.stream(REQUEST)]
        await stopper
        await ch.aclose()
    assert events[-1] == TurnFinished("cancelled", "stopped before the response started")


@pytest.mark.skipif(not on("h11"), reason="SPARK_PLAIN: the lean h11 client is off")
def test_tls_is_verified_for_https_and_not_loaded_for_plain_http(monkeypatch: Any) -> None:
    import ssl

    from spark_cli.transport.fast.h11_client import H11Client

    for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    secure = ChatCompletionsChannel("https://api.example.test/v1", KEY)
    plain = ChatCompletionsChannel("http://127.0.0.1:9/v1", KEY)
    assert isinstance(secure._net, H11Client) and isinstance(plain._net, H11Client)
    assert secure._net.tls is not None
    assert secure._net.tls.verify_mode == ssl.CERT_REQUIRED and secure._net.tls.check_hostname
    assert plain._net.tls is None


async def test_groq_usage_in_x_groq_is_read() -> None:
    last = json.dumps(
        {
            "id": "c",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
            "x_groq": {"usage": {"prompt_tokens": 4, "completion_tokens": 1}},
        }
    )
    ch = channel(Recorder(ok(sse(chunk("a"), last))))
    events = await collect(ch)
    await ch.aclose()
    assert UsageReported(4, 1) in events


async def test_openrouter_comments_and_null_content_are_ignored() -> None:
    body = b": OPENROUTER PROCESSING\n\n" + sse(
        json.dumps({"id": "o", "choices": [{"index": 0, "delta": {"content": None}}]}),
        chunk("x", "stop"),
    )
    ch = channel(Recorder(ok(body)))
    events = await collect(ch)
    await ch.aclose()
    assert text_of(events) == "x"
    assert events[-1].status == "completed"  # type: ignore[union-attr]


async def test_the_key_never_reaches_the_logs(caplog: Any) -> None:
    import logging

    caplog.set_level(logging.DEBUG)
    ch = channel(Recorder(ok()))
    await collect(ch)
    await ch.aclose()
    assert KEY not in caplog.text


async def test_time_info_is_carried_from_beside_or_inside_usage() -> None:
    inside = json.dumps({"id": "c", "choices": [], "usage": {
        "prompt_tokens": 3, "completion_tokens": 1,
        "time_info": {"queue_time": 0.5, "completion_time": 0.25, "created": 1.7e9}}})
    ch = channel(Recorder(ok(sse(chunk("a", "stop"), inside))))
    events = await collect(ch)
    await ch.aclose()
    (usage,) = [e for e in events if isinstance(e, UsageReported)]
    assert usage.time_info == {"queue_time": 0.5, "completion_time": 0.25, "created": 1.7e9}


async def test_queued_comments_become_queued_events_and_other_comments_are_ignored() -> None:
    from spark_cli.protocol.channel import Queued

    body = b": queued 2\n\n: queued 1\n\n: keep-alive\n\n" + sse(chunk("x", "stop"))
    ch = channel(Recorder(ok(body)))
    events = await collect(ch)
    await ch.aclose()
    assert [e for e in events if isinstance(e, Queued)] == [Queued(2), Queued(1)]
    assert text_of(events) == "x"


async def test_cached_input_is_read_from_prompt_tokens_details() -> None:
    last = json.dumps({"id": "c", "choices": [], "usage": {
        "prompt_tokens": 30, "completion_tokens": 2,
        "prompt_tokens_details": {"cached_tokens": 24}}})
    ch = channel(Recorder(ok(sse(chunk("a", "stop"), last))))
    events = await collect(ch)
    await ch.aclose()
    assert UsageReported(30, 2, cached_tokens=24) in events


async def test_llama_cpp_timings_are_the_usage_when_none_is_sent() -> None:
    """llama-server's last chunk: ``timings`` (``cache_n`` read from its cache, ``prompt_n``
    evaluated, ``predicted_n`` generated); a ``usage`` beside it wins."""
    timings = {"cache_n": 12, "prompt_n": 8, "prompt_ms": 3.1, "predicted_n": 5,
               "predicted_ms": 40.0, "predicted_per_second": 125.0}
    last = json.dumps({"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                       "timings": timings})
    ch = channel(Recorder(ok(sse(chunk("a"), last))))
    events = await collect(ch)
    await ch.aclose()
    assert UsageReported(20, 5, cached_tokens=12) in events
    both = json.dumps({"id": "c", "choices": [], "timings": timings,
                       "usage": {"prompt_tokens": 21, "completion_tokens": 6}})
    ch = channel(Recorder(ok(sse(chunk("a", "stop"), both))))
    events = await collect(ch)
    await ch.aclose()
    assert [e for e in events if isinstance(e, UsageReported)] == [UsageReported(21, 6)]
    later = json.dumps({"id": "c", "choices": [], "timings": timings})  # after the usage
    ch = channel(Recorder(ok(sse(chunk("a", "stop"), both.replace('"timings"', '"t"'), later))))
    events = await collect(ch)
    await ch.aclose()
    assert [e for e in events if isinstance(e, UsageReported)] == [UsageReported(21, 6)]
