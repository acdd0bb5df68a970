"""The lean h11 client against real loopback servers, beside the httpx path.

Each scenario runs a Chat Completions channel twice: on the lean path (the
default for a direct URL) and on httpx (a real ``httpx.AsyncHTTPTransport``
injected, which routes there), and asserts the same events or the same error
kind and message on both.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import socket
import struct
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
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
from spark_cli.transport.fast.h11_client import H11Client
from spark_cli.transport.http_wire import RemoteProtocolError
from spark_cli.transport.httpx_client import HttpxClient
from spark_cli.transport.retry import RetryPolicy
from spark_cli.transport.sse.http_chat import ChatCompletionsChannel

REQUEST = TurnRequest("m", (Message("user", "hi"),))
ROUTES = ("lean", "httpx")
Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def chunk(text: str | None = None, finish: str | None = None) -> bytes:
    delta = {} if text is None else {"content": text}
    body = {"id": "c1", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


SSE = chunk("Hel") + chunk("lo") + chunk(None, "stop") + b"data: [DONE]\n\n"


def head(status: str = "200 OK", *headers: str) -> bytes:
    lines = [f"HTTP/1.1 {status}", "content-type: text/event-stream", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def read_request(reader: asyncio.StreamReader) -> bytes:
    """The whole request (head and Content-Length body)."""
    raw = await reader.readuntil(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in raw.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    return raw + await reader.readexactly(length)


@asynccontextmanager
async def raw_server(handler: Handler) -> AsyncIterator[str]:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await handler(reader, writer)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    async with server:
        yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1"


def channel(route: str, url: str, **options: Any) -> ChatCompletionsChannel:
    if route == "httpx":
        options["transport"] = httpx.AsyncHTTPTransport()
    ch = ChatCompletionsChannel(url, "key", **options)
    assert isinstance(ch._net, H11Client if route == "lean" else HttpxClient)
    return ch


async def run(route: str, url: str, **options: Any) -> tuple[list[ChannelEvent], Any]:
    """Every event, and the ChannelError that ended the turn (or None)."""
    ch = channel(route, url, **options)
    events: list[ChannelEvent] = []
    error: ChannelError | None = None
    try:
        async with asyncio.timeout(10):
            async for event in ch.stream(REQUEST):
                events.append(event)
    except ChannelError as exc:
        error = exc
    finally:
        await ch.aclose()
    return events, error


def text_of(events: list[ChannelEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


async def both(handler: Handler, **options: Any) -> list[tuple[list[ChannelEvent], Any]]:
    results = []
    for route in ROUTES:
        async with raw_server(handler) as url:
            results.append(await run(route, url, **options))
    return results


def same_error(results: list[tuple[list[ChannelEvent], Any]]) -> ChannelError:
    (_, lean), (_, via_httpx) = results
    assert lean is not None and via_httpx is not None
    assert (lean.kind, lean.retryable, lean.status) == (
        via_httpx.kind, via_httpx.retryable, via_httpx.status)
    assert lean.message == via_httpx.message.replace(*_ports(via_httpx.message, lean.message))
    return lean  # type: ignore[no-any-return]


def _ports(a: str, b: str) -> tuple[str, str]:
    """The two servers listen on different ports: compare messages without them."""
    import re

    pa, pb = re.findall(r"127\.0\.0\.1:\d+", a), re.findall(r"127\.0\.0\.1:\d+", b)
    return (pa[0], pb[0]) if pa and pb else ("", "")


async def test_a_chunked_stream_is_read_whole_with_the_same_request_on_both_paths() -> None:
    seen: list[bytes] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await read_request(reader))
        writer.write(head("200 OK", "transfer-encoding: chunked"))
        for piece in (SSE[:7], SSE[7:40], SSE[40:]):
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            await writer.drain()
        writer.write(b"0\r\n\r\n")

    (lean, _), (via_httpx, _) = await both(handler)
    assert text_of(lean) == text_of(via_httpx) == "Hello"
    assert lean[-1] == via_httpx[-1] and lean[-1].status == "completed"  # type: ignore[union-attr]
    lean_req, httpx_req = (r.partition(b"\r\n\r\n") for r in seen)
    assert lean_req[2] == httpx_req[2]  # the same JSON bytes
    assert lean_req[0].startswith(b"POST /v1/chat/completions HTTP/1.1\r\n")
    lean_headers = {h.split(b":")[0].lower() for h in lean_req[0].split(b"\r\n")[1:]}
    httpx_headers = {h.split(b":")[0].lower() for h in httpx_req[0].split(b"\r\n")[1:]}
    assert lean_headers == httpx_headers
    assert b"authorization: Bearer key" in lean_req[0].lower().replace(b"bearer", b"Bearer")


async def test_a_gzip_body_and_a_body_read_to_eof_are_decoded() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(head("200 OK", "content-encoding: gzip", "connection: close")
                     + gzip.compress(SSE))

    (lean, error), (via_httpx, _) = await both(handler)
    assert error is None and text_of(lean) == text_of(via_httpx) == "Hello"


async def test_a_garbage_status_line_is_named_plainly() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"220 smtp.example ESMTP ready\r\n\r\n")

    error = same_error(await both(handler))
    assert error.kind == "protocol" and not error.retryable
    assert "did not speak HTTP (it sent '220 smtp.example ESMTP ready')" in error.message


CUT = len(chunk("Hel")) + 10
"""Bytes of body sent before the drop: the first event and part of the second."""


async def test_a_connection_dropped_mid_body_keeps_the_output_and_says_so() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(head("200 OK", f"content-length: {len(SSE)}") + SSE[:CUT])

    results = await both(handler)
    error = same_error(results)
    assert text_of(results[0][0]) == "Hel"
    assert not [e for e in results[0][0] if isinstance(e, WaitingToRetry)]  # output: no replay
    assert error.kind == "connection"
    assert error.message == (
        "connection closed after 3 characters of output (about 1 token) before the response "
        "finished (peer closed connection without sending complete message body "
        f"(received {CUT} bytes, expected {len(SSE)}))")


async def test_a_chunked_body_dropped_mid_chunk_is_the_same_error() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(head("200 OK", "transfer-encoding: chunked")
                     + b"%x\r\n%s\r\n" % (len(SSE), SSE[:20]))

    error = same_error(await both(handler))
    assert "incomplete chunked read" in error.message


async def test_a_bad_chunk_after_good_ones_in_one_read_keeps_their_output() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        good = chunk("Hel") + chunk("lo")
        writer.write(head("200 OK", "transfer-encoding: chunked")
                     + b"%x\r\n%s\r\nzz\r\n" % (len(good), good))  # one write
        await reader.read()

    results = await both(handler)
    error = same_error(results)
    assert text_of(results[0][0]) == text_of(results[1][0]) == "Hello"
    assert error.message.startswith("connection closed after 5 characters")


async def test_a_reset_connection_is_a_read_error() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(head("200 OK", "transfer-encoding: chunked") + b"5\r\n")
        await writer.drain()
        await asyncio.sleep(0.05)  # a peer that resets a moment into the body
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()

    error = same_error(await both(handler, max_retries=0))
    assert error.message == ("connection closed before any output before the response "
                             "finished (ReadError) (gave up after 1 attempts)")


async def test_a_server_that_closes_without_answering_is_retried_then_reported() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)

    policy = RetryPolicy(max_attempts=2, backoff_base=0.001, backoff_cap=0.001)
    results = await both(handler, retry_policy=policy)
    error = same_error(results)
    assert error.message == ("connection closed before any output before the response "
                             "finished (Server disconnected without sending a response.) "
                             "(gave up after 2 attempts)")
    assert [type(e) for e in results[0][0]] == [RequestSent, WaitingToRetry, RequestSent]


async def test_a_429_waits_what_retry_after_says_then_succeeds() -> None:
    answers = iter([b"HTTP/1.1 429 Too Many Requests\r\nretry-after: 0.05\r\n"
                    b"content-type: application/json\r\ncontent-length: 52\r\n\r\n"
                    b'{"error":{"message":"slow down","code":"rate_lim"}}\n',
                    head("200 OK", f"content-length: {len(SSE)}") + SSE] * 2)

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:  # one kept-alive connection serves the retry
            await read_request(reader)
            writer.write(next(answers))
            await writer.drain()

    for events, error in await both(handler):
        assert error is None and text_of(events) == "Hello"
        (wait,) = [e for e in events if isinstance(e, WaitingToRetry)]
        assert wait.seconds == pytest.approx(0.05)
        assert wait.reason.startswith("429 rate limited (rate_lim): slow down (POST http://")


async def test_a_401_is_auth_on_both_paths() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        body = b'{"error":{"message":"bad key","code":"invalid_api_key"}}'
        writer.write(b"HTTP/1.1 401 Unauthorized\r\ncontent-length: %d\r\n\r\n%s"
                     % (len(body), body))

    error = same_error(await both(handler))
    assert error.kind == "auth" and error.message.startswith(
        "401 authentication failed (invalid_api_key): bad key (POST http://127.0.0.1:")
    assert error.message.endswith("/v1/chat/completions)")


async def test_a_server_that_never_answers_hits_the_first_token_timeout() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        await asyncio.sleep(5)  # a server that never answers

    results = await both(handler, idle_timeout=0.1, first_token_timeout=0.2, max_retries=3)
    error = same_error(results)
    assert (error.kind, error.retryable) == ("timeout", False)  # not resent: one attempt
    assert error.message.startswith("no first token from the server 0.2 s after the request")
    assert "raise first_token_timeout" in error.message
    assert [type(e) for e in results[0][0]] == [RequestSent]


async def test_a_connect_that_never_completes_is_a_connect_timeout() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
        fillers = []
        for _ in range(4):  # fill the accept queue: later SYNs are dropped
            filler = socket.socket()
            filler.setblocking(False)
            filler.connect_ex(listener.getsockname())
            fillers.append(filler)
        try:
            results = [await run(route, url, connect_timeout=0.2, max_retries=0)
                       for route in ROUTES]
        finally:
            for filler in fillers:
                filler.close()
    error = same_error(results)
    assert error.kind == "connection"
    assert error.message == f"timed out connecting to {url} (gave up after 1 attempts)"


async def test_a_refused_connection_reads_as_httpx_says_it() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    results = [await run(route, url, max_retries=0) for route in ROUTES]
    error = same_error(results)
    assert error.message == (
        f"cannot connect to {url}: All connection attempts failed (gave up after 1 attempts)")


async def test_connections_are_kept_for_the_next_turn_and_closed_after_a_stop() -> None:
    peers: list[int] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            await read_request(reader)
            peers.append(writer.get_extra_info("peername")[1])
            writer.write(head("200 OK", f"content-length: {len(SSE)}") + SSE)
            await writer.drain()

    async with raw_server(handler) as url:
        ch = channel("lean", url)
        for _ in range(2):
            events = [e async for e in ch.stream(REQUEST)]
            assert text_of(events) == "Hello"
        async for event in ch.stream(REQUEST):
            if isinstance(event, TextDelta):
                await ch.stop()
        assert not ch._net._idle  # type: ignore[attr-defined]  # a stopped body is not reused
        events = [e async for e in ch.stream(REQUEST)]
        await ch.aclose()
    assert text_of(events) == "Hello"
    assert len(peers) == 4 and len(set(peers[:3])) == 1 and peers[3] != peers[0]


async def test_a_header_h11_refuses_to_send_is_the_same_error_on_both_paths() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)

    results = await both(handler, max_retries=0, extra_headers={"X-Tag": "a\r\nInjected: 1"})
    error = same_error(results)
    assert error.kind == "connection" and "Illegal header value" in error.message
    assert not [e for e in results[0][0] if isinstance(e, RequestSent)]


async def test_an_idle_connection_past_its_keep_alive_is_not_reused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from spark_cli.transport.fast import h11_client

    peers: list[int] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            await read_request(reader)
            peers.append(writer.get_extra_info("peername")[1])
            writer.write(head("200 OK", f"content-length: {len(SSE)}") + SSE)
            await writer.drain()

    monkeypatch.setattr(h11_client, "KEEPALIVE_EXPIRY", 0.05)
    async with raw_server(handler) as url:
        ch = channel("lean", url)
        net = ch._net
        assert isinstance(net, H11Client)
        for _ in range(2):
            assert text_of([e async for e in ch.stream(REQUEST)]) == "Hello"
            await asyncio.sleep(0.1)  # idle past the keep-alive expiry
        assert len(net._open) == 1  # the expired one was closed, the last one kept
        await ch.aclose()
        assert not net._open and not net._idle
        with pytest.raises(RuntimeError, match="client has been closed"):
            net.post("chat/completions", b"{}")
    assert len(peers) == 2 and peers[0] != peers[1]


async def test_closing_the_client_mid_stream_closes_that_connection_too() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(head("200 OK", "transfer-encoding: chunked") + b"%x\r\n%s\r\n"
                     % (len(chunk("a")), chunk("a")))
        await writer.drain()
        await reader.read()  # until the client hangs up

    async with raw_server(handler) as url:
        client = H11Client(url, {}, connect_timeout=5, write_timeout=5, trust_env=False)
        exchange = client.post("chat/completions", b"{}")
        response = await exchange.task
        lines = response.aiter_line_batches()
        assert await lines.__anext__() == [chunk("a").decode().strip(), ""]
        await client.aclose()
        assert not client._open
        with pytest.raises(RemoteProtocolError, match="incomplete chunked read"):
            async with asyncio.timeout(5):
                async for _ in lines:
                    pass


async def test_chunks_received_together_come_up_as_one_batch_and_a_lone_one_at_once() -> None:
    tokens = [chunk(t) for t in ("a", "b", "c", "d", "e")]
    lone = asyncio.Event()

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        burst = b"".join(b"%x\r\n%s\r\n" % (len(t), t) for t in tokens)
        writer.write(head("200 OK", "transfer-encoding: chunked") + burst)  # one write
        await lone.wait()
        writer.write(b"%x\r\n%s\r\n" % (len(tokens[0]), tokens[0]))
        await writer.drain()
        await reader.read()  # the body never ends: the lone chunk cannot wait for more

    async with raw_server(handler) as url:
        client = H11Client(url, {}, connect_timeout=5, write_timeout=5, trust_env=False)
        response = await client.post("chat/completions", b"{}").task
        batches = response.aiter_line_batches()
        async with asyncio.timeout(10):
            first = await batches.__anext__()
            lone.set()
            second = await batches.__anext__()
        assert first == [line for t in tokens for line in (t.decode().strip(), "")]
        assert second == [tokens[0].decode().strip(), ""]
        await client.aclose()
