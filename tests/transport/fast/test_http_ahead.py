"""The head start: a request sent on a blocking socket, then adopted by the lean client.

Real loopback servers count connections and requests, so "sent once" and
"not connected twice" are observed, not assumed. Each failure is compared with
the same channel run without a head start: same kind, same message.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from waiting import wait_until

from spark_cli.protocol.channel import (
    ChannelError,
    ChannelEvent,
    Message,
    RequestSent,
    TextDelta,
    TurnFinished,
    TurnRequest,
    WaitingToRetry,
)
from spark_cli.transport.bodies import CHAT_PATH, chat_body, encode, stream_headers
from spark_cli.transport.fast.h11_client import H11Client, connect_failure
from spark_cli.transport.fast.http_ahead import HttpAhead, Origin, new_connection, request_bytes
from spark_cli.transport.fast.http_ahead import send_http as send_ahead
from spark_cli.transport.http_wire import ConnectError, ConnectTimeout
from spark_cli.transport.retry import RetryPolicy
from spark_cli.transport.sse.http_chat import ChatCompletionsChannel
from spark_cli.transport.sse.http_responses import ResponsesSSEChannel

REQUEST = TurnRequest("m", (Message("user", "hi"),), instructions="be brief")
OTHER = TurnRequest("m", (Message("user", "something else"),))
CHANNELS = {"chat_sse": ChatCompletionsChannel, "responses_sse": ResponsesSSEChannel}


def chat_sse() -> bytes:
    def chunk(delta: dict[str, str], finish: str | None) -> bytes:
        body = {"id": "c1", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return b"data: " + json.dumps(body).encode() + b"\n\n"

    return chunk({"content": "Hel"}, None) + chunk({"content": "lo"}, None) + chunk(
        {}, "stop") + b"data: [DONE]\n\n"


def responses_sse() -> bytes:
    events = [("response.created", {"response": {"id": "r1"}}),
              ("response.output_text.delta", {"delta": "Hel"}),
              ("response.output_text.delta", {"delta": "lo"}),
              ("response.completed", {"response": {"id": "r1", "status": "completed"}})]
    return b"".join(f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n".encode()
                    for name, data in events)


ANSWERS = {"chat_sse": chat_sse(), "responses_sse": responses_sse()}


class Seen:
    """What a server received: one entry per connection, its requests in order."""

    def __init__(self) -> None:
        self.connections: list[list[bytes]] = []
        self.answered = asyncio.Event()
        """Set once an answer was written."""
        self.closed = asyncio.Event()
        """Set once a connection ended (the client closed it)."""

    @property
    def requests(self) -> list[bytes]:
        return [r for conn in self.connections for r in conn]


async def read_request(reader: asyncio.StreamReader) -> bytes:
    raw = await reader.readuntil(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in raw.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    return raw + await reader.readexactly(length)


Answer = Callable[[bytes], bytes]


def ok(kind: str) -> Answer:
    def answer(request: bytes) -> bytes:
        body = ANSWERS[kind]
        return (b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"content-length: %d\r\n\r\n%s" % (len(body), body))

    return answer


@asynccontextmanager
async def server(answer: Answer) -> AsyncIterator[tuple[str, Seen]]:
    seen = Seen()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        mine: list[bytes] = []
        seen.connections.append(mine)
        try:
            while True:
                request = await read_request(reader)
                mine.append(request)
                reply = answer(request)
                if not reply:
                    break  # close without answering
                writer.write(reply)
                await writer.drain()
                seen.answered.set()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass  # the client closed; or the test ended with a connection kept alive
        finally:
            seen.closed.set()
            writer.close()

    srv = await asyncio.start_server(handle, "127.0.0.1", 0)
    async with srv:
        yield f"http://127.0.0.1:{srv.sockets[0].getsockname()[1]}/v1", seen


async def ahead_of(kind: str, url: str, request: TurnRequest = REQUEST,
                   api_key: str | None = "key") -> HttpAhead | None:
    """``send_ahead`` as a one-shot calls it (blocking: on a thread, the server is on
    this loop)."""
    return await asyncio.to_thread(send_ahead, kind, url, api_key, request,
                                   connect_timeout=5.0, write_timeout=10.0)


async def turn(kind: str, url: str, request: TurnRequest = REQUEST,
               **options: Any) -> tuple[list[ChannelEvent], ChannelError | None]:
    channel = CHANNELS[kind](url, "key", **options)
    events: list[ChannelEvent] = []
    error = None
    try:
        async with asyncio.timeout(10):
            async for event in channel.stream(request):
                events.append(event)
    except ChannelError as exc:
        error = exc
    finally:
        await channel.aclose()
    return events, error


def text(events: list[ChannelEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


@pytest.mark.parametrize("kind", sorted(CHANNELS))
async def test_the_request_sent_ahead_is_adopted_and_sent_once(kind: str) -> None:
    async with server(ok(kind)) as (url, seen):
        plain, error = await turn(kind, url)
        assert error is None and text(plain) == "Hello"
        without = seen.requests
        seen.connections.clear()
        ahead = await ahead_of(kind, url)
        assert ahead is not None and ahead.at is not None and ahead.error is None
        await asyncio.wait_for(seen.answered.wait(), 5)  # answered before the loop adopts it
        events, error = await turn(kind, url, ahead=ahead)
    assert error is None
    assert text(events) == "Hello" and isinstance(events[-1], TurnFinished)
    assert events[0] == RequestSent(ahead.at)  # the moment the bytes left, ahead
    assert [type(e) for e in events] == [type(e) for e in plain]
    assert len(seen.connections) == 1 and len(seen.requests) == 1
    assert seen.requests == without  # byte for byte the channel's own request


async def test_the_adopted_connection_is_kept_for_the_next_turn() -> None:
    async with server(ok("chat_sse")) as (url, seen):
        channel = ChatCompletionsChannel(url, "key", ahead=await ahead_of("chat_sse", url))
        try:
            for _ in range(2):
                assert text([e async for e in channel.stream(REQUEST)]) == "Hello"
        finally:
            await channel.aclose()
    assert [len(conn) for conn in seen.connections] == [2]


async def test_another_request_drops_the_one_sent_ahead_and_sends_its_own() -> None:
    async with server(ok("chat_sse")) as (url, seen):
        ahead = await ahead_of("chat_sse", url)
        events, error = await turn("chat_sse", url, OTHER, ahead=ahead)
        await asyncio.wait_for(seen.closed.wait(), 5)  # the ahead one, closed unread
    assert error is None and text(events) == "Hello"
    assert len(seen.connections) == 2  # the ahead one was closed unread
    assert b"something else" in seen.connections[1][0]
    assert ahead is not None and ahead.sock is None


async def test_a_refused_connect_reads_as_without_ahead_and_is_not_tried_twice(
        monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    _, plain = await turn("chat_sse", url, max_retries=0)
    connects: list[int] = []
    real = H11Client._connect

    async def counted(self: H11Client) -> Any:
        connects.append(1)
        return await real(self)

    monkeypatch.setattr(H11Client, "_connect", counted)
    ahead = await ahead_of("chat_sse", url)
    assert ahead is not None and isinstance(ahead.error, ConnectionRefusedError)
    _, error = await turn("chat_sse", url, max_retries=0, ahead=ahead)
    assert plain is not None and error is not None
    assert (error.kind, error.message, error.retryable) == (
        plain.kind, plain.message, plain.retryable)
    assert connects == []  # the refusal seen ahead was the first attempt's


async def test_a_refused_connect_ahead_is_retried_by_the_channel_as_usual() -> None:
    async with server(ok("chat_sse")) as (url, seen):
        origin = Origin(url, stream_headers("key", None))
        body = encode(chat_body(REQUEST, None))
        data = request_bytes(new_connection(), origin.post(origin.target(CHAT_PATH), body), body)
        ahead = HttpAhead(data)
        ahead.error = ConnectionRefusedError(111, "Connection refused")  # e.g. still starting
        events, error = await turn("chat_sse", url, ahead=ahead,
                                   retry_policy=RetryPolicy(backoff_base=0.01, rand=lambda: 0))
    assert error is None and text(events) == "Hello"
    assert any(isinstance(e, WaitingToRetry) for e in events)
    assert len(seen.requests) == 1


@pytest.mark.parametrize("failure, expected", [
    (TimeoutError(), ConnectTimeout("")),
    (ConnectionRefusedError(111, "Connection refused"),
     ConnectError("All connection attempts failed")),
    (socket.gaierror(-2, "Name or service not known"),
     ConnectError("[Errno -2] Name or service not known")),
])
def test_a_failed_connect_reads_the_same_ahead_or_not(failure: OSError, expected: Any) -> None:
    got = connect_failure(failure)
    assert type(got) is type(expected) and str(got) == str(expected)


async def test_a_401_to_the_request_sent_ahead_is_the_same_auth_error() -> None:
    def refuse(request: bytes) -> bytes:
        body = b'{"error": {"message": "bad key", "type": "invalid_request_error"}}'
        return (b"HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\n"
                b"content-length: %d\r\n\r\n%s" % (len(body), body))

    async with server(refuse) as (url, _):
        _, plain = await turn("chat_sse", url)
    async with server(refuse) as (url, seen):
        _, error = await turn("chat_sse", url, ahead=await ahead_of("chat_sse", url))
    assert plain is not None and error is not None
    assert (error.kind, error.status) == (plain.kind, plain.status) == ("auth", 401)
    assert error.message == plain.message.replace(*_port_pair(plain.message, error.message))
    assert len(seen.requests) == 1


def _port_pair(a: str, b: str) -> tuple[str, str]:
    import re

    pa, pb = re.findall(r"127\.0\.0\.1:\d+", a), re.findall(r"127\.0\.0\.1:\d+", b)
    return (pa[0], pb[0]) if pa and pb else ("", "")


async def test_a_server_that_closes_after_the_request_is_retried_on_a_new_connection() -> None:
    answers = iter([b"", ok("chat_sse")(b"")])  # the first connection: closed, no answer

    async with server(lambda request: next(answers)) as (url, seen):
        ahead = await ahead_of("chat_sse", url)
        events, error = await turn("chat_sse", url, ahead=ahead,
                                   retry_policy=RetryPolicy(backoff_base=0.01, rand=lambda: 0))
    assert error is None and text(events) == "Hello"
    assert [len(conn) for conn in seen.connections] == [1, 1]


async def test_stop_during_an_adopted_turn_cancels_it() -> None:
    never: asyncio.Event = asyncio.Event()
    answering = asyncio.Event()

    async def hold(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await read_request(reader)
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                         b"transfer-encoding: chunked\r\n\r\n")
            answering.set()
            await never.wait()
        finally:
            writer.close()

    srv = await asyncio.start_server(hold, "127.0.0.1", 0)
    async with srv:
        url = f"http://127.0.0.1:{srv.sockets[0].getsockname()[1]}/v1"
        channel = ChatCompletionsChannel(url, "key", ahead=await ahead_of("chat_sse", url))
        events: list[ChannelEvent] = []

        started = asyncio.Event()

        async def consume() -> None:
            async for event in channel.stream(REQUEST):
                events.append(event)
                started.set()

        task = asyncio.create_task(consume())
        await asyncio.wait_for(answering.wait(), 5)
        await asyncio.wait_for(started.wait(), 5)  # the turn runs: RequestSent came out
        await channel.stop()
        await asyncio.wait_for(task, 5)
        await channel.aclose()
        never.set()
    assert isinstance(events[0], RequestSent)
    assert isinstance(events[-1], TurnFinished) and events[-1].status == "cancelled"


@pytest.mark.parametrize("url", ["https://api.example.com/v1", "http://user:pw@localhost/v1",
                                 "http://localhost/v1?x=1"])
def test_what_the_lean_client_would_not_carry_is_not_sent_ahead(url: str) -> None:
    assert send_ahead("chat_sse", url, "key", REQUEST, connect_timeout=0.1,
                      write_timeout=0.1) is None


def test_a_proxied_url_and_an_unknown_kind_are_not_sent_ahead(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.invalid:3128")
    assert send_ahead("chat_sse", "http://api.example.com/v1", "key", REQUEST,
                      connect_timeout=0.1, write_timeout=0.1) is None
    assert send_ahead("responses_ws", "http://127.0.0.1:9/v1", "key", REQUEST,
                      connect_timeout=0.1, write_timeout=0.1) is None


async def test_a_key_h11_refuses_to_send_is_left_to_the_channel_to_report() -> None:
    async with server(ok("chat_sse")) as (url, seen):
        ahead = await ahead_of("chat_sse", url, api_key="bad\nkey")
        assert ahead is None
        channel = ChatCompletionsChannel(url, "bad\nkey", max_retries=0)
        with pytest.raises(ChannelError):
            async for _ in channel.stream(REQUEST):
                pass
        await channel.aclose()
    assert seen.requests == []


def test_sending_ahead_never_imports_asyncio() -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:  # accepts into its backlog
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
        code = (
            "import sys\n"
            "from spark_cli.protocol.channel import Message, TurnRequest\n"
            "from spark_cli.transport.fast.http_ahead import send_http as send_ahead\n"
            f"a = send_ahead('chat_sse', {url!r}, 'k', TurnRequest('m', (Message('user', 'hi'),)),"
            " connect_timeout=5, write_timeout=5)\n"
            "print(a.at is not None, a.error, 'asyncio' in sys.modules)\n"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=60, env={**os.environ, "NO_PROXY": "*"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "None", "False"]


async def test_closing_the_client_closes_a_request_never_adopted() -> None:
    async with server(ok("chat_sse")) as (url, seen):
        ahead = await ahead_of("chat_sse", url)
        await wait_until(lambda: seen.requests, 5)  # the server took it (and will see the close)
        channel = ChatCompletionsChannel(url, "key", ahead=ahead)
        await channel.aclose()
        await asyncio.wait_for(seen.closed.wait(), 5)  # the server saw the close
    assert ahead is not None and ahead.sock is None
