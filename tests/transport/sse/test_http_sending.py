"""HTTP channels: when the request counts as sent, DNS failures, masked URLs, warm()."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from spark_cli.protocol.channel import (
    ChannelError,
    ChannelEvent,
    Message,
    RequestSent,
    TextDelta,
    TurnRequest,
    WaitingToRetry,
)
from spark_cli.transport.factory import open_channel
from spark_cli.transport.retry import RetryPolicy
from spark_cli.transport.sse.http_chat import ChatCompletionsChannel

REQUEST = TurnRequest("m", (Message("user", "hi"),))
SSE = (b'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":null}]}'
       b'\n\ndata: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
       b"data: [DONE]\n\n")


class ThreadServer:
    """A one-shot HTTP server on its own thread: it stamps (``perf_counter``) the
    moment a whole request arrived and sets ``whole``, whatever the client's event loop
    is doing."""

    def __init__(self) -> None:
        self.arrived: list[float] = []
        self.whole = threading.Event()
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen()
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}/v1"
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        conn, _ = self._sock.accept()
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length")))
            while len(body) < length:
                body += conn.recv(65536)
            self.arrived.append(time.perf_counter())
            self.whole.set()
            conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                         b"content-length: " + str(len(SSE)).encode() + b"\r\n\r\n" + SSE)

    def close(self) -> None:
        self._sock.close()


@pytest.fixture
def thread_server() -> Iterator[ThreadServer]:
    server = ThreadServer()
    yield server
    server.close()


async def test_request_sent_comes_after_the_request_reached_the_server(
    thread_server: ThreadServer,
) -> None:
    ch = ChatCompletionsChannel(thread_server.url, None)
    seen_at: list[float] = []
    events: list[ChannelEvent] = []
    async with asyncio.timeout(10):
        async for event in ch.stream(REQUEST):
            events.append(event)
            if isinstance(event, RequestSent):
                seen_at.append(time.perf_counter())
                # slow work on RequestSent (the applier import) blocks the loop: the server
                # gets the whole request meanwhile, so none of it was left to send
                assert thread_server.whole.wait(10), "the request was not all sent"
    await ch.aclose()
    (arrived,) = thread_server.arrived
    (sent,) = [e for e in events if isinstance(e, RequestSent)]
    # the thread may stamp a little after the bytes arrived: it needs the GIL
    assert abs(sent.at - arrived) < 0.05  # marked when the bytes left, not when we heard of it
    assert sent.at < seen_at[0]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "ok"


async def test_request_sent_is_never_before_the_transport_got_the_request() -> None:
    handled: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        handled.append(request)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=SSE)

    ch = ChatCompletionsChannel("http://x.test/v1", None, transport=httpx.MockTransport(handler))
    had: list[int] = []
    async for event in ch.stream(REQUEST):
        if isinstance(event, RequestSent):
            had.append(len(handled))  # requests the transport had when RequestSent came
    await ch.aclose()
    assert had == [1]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _stream_until_error(ch: Any) -> tuple[list[ChannelEvent], ChannelError]:
    """Every event the channel yields before it raises (it must), then close it."""
    events: list[ChannelEvent] = []
    with pytest.raises(ChannelError) as info:
        async with asyncio.timeout(10):
            async for event in ch.stream(REQUEST):
                events.append(event)
    await ch.aclose()
    return events, info.value


@pytest.mark.parametrize("kind", ["chat_sse", "responses_sse", "responses_ws"])
async def test_an_unreachable_server_never_reports_request_sent(kind: str) -> None:
    ch = open_channel(kind, base_url=f"http://127.0.0.1:{_closed_port()}/v1", api_key=None,
                      retry_policy=RetryPolicy(max_attempts=2, max_wait=0.01))
    events, error = await _stream_until_error(ch)
    assert error.kind == "connection"
    assert not any(isinstance(e, RequestSent) for e in events)


@pytest.mark.parametrize("kind", ["chat_sse", "responses_sse", "responses_ws"])
async def test_a_host_that_does_not_resolve_fails_at_once_without_retries(kind: str) -> None:
    ch = open_channel(kind, base_url="http://no-such-host.invalid/v1", api_key=None)
    events, error = await _stream_until_error(ch)
    assert error.kind == "connection"
    assert not error.retryable
    assert "cannot resolve" in error.message and "no-such-host.invalid" in error.message
    assert not any(isinstance(e, WaitingToRetry) for e in events)


@pytest.mark.parametrize("kind", ["chat_sse", "responses_sse", "responses_ws"])
async def test_a_password_in_the_base_url_is_never_in_an_error(kind: str) -> None:
    url = f"http://user:s3cr3tpass@127.0.0.1:{_closed_port()}/v1"
    ch = open_channel(kind, base_url=url, api_key=None, max_retries=0)
    _events, error = await _stream_until_error(ch)
    assert "s3cr3tpass" not in error.message
    assert "***@127.0.0.1" in error.message


@pytest.mark.parametrize("kind", ["chat_sse", "responses_sse", "responses_ws"])
async def test_warm_takes_the_interface_arguments(kind: str, engine: Any) -> None:
    from spark_cli.protocol.channel import Channel

    ch: Channel = open_channel(kind, base_url=engine.url + "/v1", api_key=engine.token)
    await ch.warm()
    await ch.warm(REQUEST)
    events = [e async for e in ch.stream(REQUEST)]
    await ch.aclose()
    assert events[-1].status in ("completed", "incomplete")  # type: ignore[union-attr]
