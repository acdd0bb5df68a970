"""ResponsesWebSocketChannel(ahead=...): the connection send_ahead opened becomes the first
one, its request is not sent again, and every failure looks exactly as it does today."""

from __future__ import annotations

import asyncio
import json
import select
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from waiting import wait_until
from websockets.protocol import State
from websockets.server import ServerProtocol

from spark_cli.protocol.channel import (
    ChannelError,
    ChannelEvent,
    Reconnected,
    RequestSent,
    TextDelta,
    TurnFinished,
    TurnRequest,
    WaitingToRetry,
)
from spark_cli.transport.factory import websocket_url
from spark_cli.transport.fast.ws_ahead import WsAhead
from spark_cli.transport.fast.ws_ahead import send_ws as send_ahead
from spark_cli.transport.retry import RetryPolicy
from spark_cli.transport.ws import ws_links
from spark_cli.transport.ws.websocket import ResponsesWebSocketChannel
from tests.transport.fast.test_ws_ahead import free_port
from tests.transport.ws.raw_ws_server import Answering, RawServer, Script, accepting, response
from tests.transport.ws.test_websocket_channel import (
    KEY,
    collect,
    echo_turns,
    endless,
    request,
    text_of,
)
from tests.transport.ws.test_websocket_channel import channel as plain_channel

ONCE = RetryPolicy(max_attempts=1)
TWICE = RetryPolicy(max_attempts=2, backoff_base=0.001, backoff_cap=0.001)


async def ahead_of(url: str, req: TurnRequest, key: str = KEY, **options: Any) -> WsAhead:
    options.setdefault("connect_timeout", 5.0)
    ahead = await asyncio.to_thread(send_ahead, url, key, req, **options)
    assert ahead is not None
    return ahead


def channel(url: str, ahead: WsAhead | None, **options: Any) -> ResponsesWebSocketChannel:
    options.setdefault("warm_spare", False)
    return plain_channel(url, ahead=ahead, **options)


def count_connects(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """websockets' ``connect`` calls the channel makes (an adopted connection is not one)."""
    calls: list[str] = []
    original = ws_links.connect

    def counted(url: str, **options: Any) -> Any:
        calls.append(url)
        return original(url, **options)

    monkeypatch.setattr(ws_links, "connect", counted)
    return calls


async def failure(ch: ResponsesWebSocketChannel, req: TurnRequest) -> ChannelError:
    with pytest.raises(ChannelError) as info:
        await collect(ch, req)
    await ch.aclose()
    return info.value


@pytest.mark.both_servers
async def test_an_adopted_turn_streams_what_a_normal_one_does(engine: Any) -> None:
    url = websocket_url(engine.url + "/v1")
    req = TurnRequest("spark-test", request("rename greet to welcome").messages)
    normal = ResponsesWebSocketChannel(url, "test-token", warm_spare=False)
    expected = await collect(normal, req)
    await normal.aclose()
    ahead = await ahead_of(url, req, key="test-token")
    assert ahead is not None and ahead.sock is not None
    readable, _, _ = await asyncio.to_thread(select.select, [ahead.sock], [], [], 5)
    assert readable  # the engine answered while the client "imported"
    adopted = ResponsesWebSocketChannel(url, "test-token", warm_spare=False, ahead=ahead)
    events = await collect(adopted, req)
    assert adopted.handshakes == 1 and adopted.capabilities.cancel  # the 101's extensions
    await adopted.aclose()
    assert events[0] == RequestSent(ahead.at)  # type: ignore[arg-type]
    assert text_of(events) == text_of(expected) != ""
    def kinds(events: list[ChannelEvent]) -> list[type]:
        return [type(e) for e in events if type(e) is not TextDelta]  # deltas coalesce by timing

    assert kinds(events) == kinds(expected)
    assert isinstance(events[-1], TurnFinished) and events[-1].status == "completed"


async def test_the_request_sent_ahead_is_not_sent_again(ws_server: Any) -> None:
    async with ws_server(echo_turns, extensions="response.cancel") as srv:
        ahead = await ahead_of(srv.url, request("hi"))
        ch = channel(srv.url, ahead)
        events = await collect(ch, request("hi"))
        chained = await collect(ch, request("hi", "Hello", "more"))
        await ch.aclose()
    assert events[0] == RequestSent(ahead.at)  # type: ignore[arg-type]
    assert text_of(events) == "Hello" and events[-1] == TurnFinished("completed", None, "resp_1")
    assert srv.handshakes == 1
    assert [(n, f["input"][-1]["content"]) for n, f in srv.creates()] == [(1, "hi"), (1, "more")]
    assert srv.creates()[1][1]["previous_response_id"] == "resp_1"  # the chain goes on
    assert text_of(chained) == "Hello"


async def test_frames_that_came_with_the_101_are_read_first() -> None:
    with RawServer(Script(response("r1", "Hel", "lo"))) as srv:
        ahead = await ahead_of(srv.url, request("hi"))
        ch = channel(srv.url, ahead)
        events = await collect(ch, request("hi"))
        await ch.aclose()
    assert text_of(events) == "Hello" and events[-1] == TurnFinished("completed", None, "r1")
    assert len(srv.creates()) == 1


async def test_another_request_closes_the_ahead_and_is_sent_as_today(ws_server: Any) -> None:
    async with ws_server(echo_turns) as srv:
        ahead = await ahead_of(srv.url, request("first"))
        ch = channel(srv.url, ahead)
        events = await collect(ch, request("second"))
        await wait_until(lambda: 1 in srv.closed, 5)
        await ch.aclose()
    assert [(n, f["input"][0]["content"]) for n, f in srv.creates()] == [(1, "first"),
                                                                          (2, "second")]
    assert not any(isinstance(e, Reconnected) for e in events)
    assert text_of(events) == "Hello"


async def test_warm_closes_the_ahead_and_connects_as_today(ws_server: Any) -> None:
    async with ws_server(echo_turns) as srv:
        ahead = await ahead_of(srv.url, request("hi"))
        ch = channel(srv.url, ahead)
        await ch.warm()
        events = await collect(ch, request("hi"))
        await ch.aclose()
    assert srv.handshakes == 2 and 1 in srv.closed
    assert [n for n, _ in srv.creates()] == [1, 2]  # sent again on the warm connection
    assert text_of(events) == "Hello"


async def test_an_ahead_for_another_url_is_closed_and_ignored(ws_server: Any) -> None:
    async with ws_server(echo_turns) as srv:
        ahead = await ahead_of(srv.url, request("hi"))
        ch = channel(srv.url + "?other", ahead)
        assert ahead.sock is None
        events = await collect(ch, request("hi"))
        await ch.aclose()
    assert srv.handshakes == 2 and text_of(events) == "Hello"


async def test_stop_during_an_adopted_turn_cancels_it(ws_server: Any) -> None:
    cancelled: list[str] = []
    async with ws_server(endless(cancelled), extensions="response.cancel") as srv:
        ahead = await ahead_of(srv.url, request("hi"))
        ch = channel(srv.url, ahead)
        events: list[ChannelEvent] = []
        async with asyncio.timeout(10):
            async for event in ch.stream(request("hi")):
                events.append(event)
                if isinstance(event, TextDelta):
                    await ch.stop()
        after = await collect(ch, request("again"))
        await ch.aclose()
    assert events[-1] == TurnFinished("cancelled", None, "r1")
    assert cancelled == ["r1"]  # the cancel extension, read from the adopted 101
    assert text_of(after) == "fresh" and srv.handshakes == 1


async def test_a_refused_connection_fails_alike_and_is_not_tried_twice_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = f"ws://127.0.0.1:{free_port()}/v1/responses"
    connects = count_connects(monkeypatch)
    today = await failure(channel(url, None, retry_policy=ONCE), request())
    assert len(connects) == 1
    ahead = await ahead_of(url, request())
    error = await failure(channel(url, ahead, retry_policy=ONCE), request())
    assert len(connects) == 1  # the failure recorded ahead was the first attempt
    assert (error.kind, error.message) == ("connection", today.message)
    ahead = await ahead_of(url, request())
    ch = channel(url, ahead, retry_policy=TWICE)
    with pytest.raises(ChannelError) as info:
        async with asyncio.timeout(10):
            async for event in ch.stream(request()):
                assert isinstance(event, WaitingToRetry) and len(connects) == 1  # not yet
    await ch.aclose()
    assert len(connects) == 2  # one real connect, after the backoff
    assert info.value.message == today.message.replace("after 1 attempts", "after 2 attempts")


async def test_a_401_handshake_fails_alike_without_the_key(
    ws_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = json.dumps({"error": {"message": f"Incorrect API key provided: {KEY}",
                                 "code": "invalid_api_key"}})
    connects = count_connects(monkeypatch)
    async with ws_server(echo_turns, reject=401, reject_body=body) as srv:
        today = await failure(channel(srv.url, None), request())
        ahead = await ahead_of(srv.url, request())
        error = await failure(channel(srv.url, ahead), request())
    assert len(connects) == 1 and srv.handshakes == 0 and len(srv.auth) == 2
    assert (error.kind, error.status, error.message) == ("auth", 401, today.message)
    assert KEY not in error.message and "Incorrect API key" in error.message


async def test_a_handshake_timeout_is_paid_once(monkeypatch: pytest.MonkeyPatch) -> None:
    connects = count_connects(monkeypatch)
    with socket.create_server(("127.0.0.1", 0)) as silent:  # accepts, never answers
        url = f"ws://127.0.0.1:{silent.getsockname()[1]}/v1/responses"
        today = await failure(channel(url, None, retry_policy=ONCE, connect_timeout=0.3),
                              request())
        ahead = await ahead_of(url, request(), connect_timeout=0.3)
        started = time.monotonic()
        error = await failure(channel(url, ahead, retry_policy=ONCE, connect_timeout=1.0),
                              request())
        took = time.monotonic() - started
    assert len(connects) == 1 and took < 1.0  # raised at once: a second wait takes 1 s
    assert (error.kind, error.message) == ("connection", today.message)
    assert "timed out during opening handshake" in today.message


async def test_a_server_that_does_not_speak_http_fails_alike(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def ssh(listener: socket.socket) -> None:
        for _ in range(2):
            conn, _ = listener.accept()
            with conn:
                conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")
                conn.recv(65536)

    connects = count_connects(monkeypatch)
    with socket.create_server(("127.0.0.1", 0)) as listener:
        server = threading.Thread(target=ssh, args=(listener,), daemon=True)
        server.start()
        url = f"ws://127.0.0.1:{listener.getsockname()[1]}/v1/responses"
        today = await failure(channel(url, None), request())
        ahead = await ahead_of(url, request())
        error = await failure(channel(url, ahead), request())
        server.join(5)
    assert len(connects) == 1
    assert (error.kind, error.message) == ("protocol", today.message)
    assert "did not speak HTTP" in error.message and "SSH-2.0" in error.message


async def test_a_close_right_after_the_101_is_retried_as_today() -> None:
    results = []
    for use_ahead in (False, True):
        with RawServer(Script(close=(1011, "overloaded")),
                       Script(answer=response("r2", "ok"))) as srv:
            ahead = await ahead_of(srv.url, request("hi")) if use_ahead else None
            ch = channel(srv.url, ahead, retry_policy=TWICE)
            events = await collect(ch, request("hi"))
            await ch.aclose()
        results.append((events, srv.creates()))
    (today, today_creates), (events, creates) = results
    first, first_today = events[0], today[0]
    assert isinstance(first, WaitingToRetry) and isinstance(first_today, WaitingToRetry)
    assert (first.reason, first.attempt) == (first_today.reason, 1)
    assert "closed" in first.reason
    assert text_of(events) == "ok" and events[-1] == TurnFinished("completed", None, "r2")
    assert [n for n, _ in creates] == [n for n, _ in today_creates] == [2]


async def test_aclose_closes_an_unclaimed_ahead(ws_server: Any) -> None:
    async with ws_server(echo_turns) as srv:
        ahead = await ahead_of(srv.url, request("hi"))
        ch = channel(srv.url, ahead)
        await ch.aclose()
        await wait_until(lambda: 1 in srv.closed, 5)
    assert ahead.sock is None and srv.handshakes == 1


@pytest.mark.parametrize("answer", [
    accepting(**{"Sec-WebSocket-Extensions": "permessage-deflate"}),
    accepting(**{"Sec-WebSocket-Accept": "AAAAAAAAAAAAAAAAAAAAAAAAAAA="}),
    accepting(**{"Sec-WebSocket-Protocol": "chat"}),
    lambda _: b"",  # the connection closed once the request is in
], ids=["extension", "bad-accept", "subprotocol", "eof"])
async def test_a_refused_handshake_ahead_fails_alike(
    answer: Callable[[Any], bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    connects = count_connects(monkeypatch)
    with Answering(answer) as srv:
        today = await failure(channel(srv.url, None, retry_policy=ONCE), request())
        ahead = await ahead_of(srv.url, request())
        error = await failure(channel(srv.url, ahead, retry_policy=ONCE), request())
    assert len(connects) == 1  # the failure recorded ahead was the first attempt
    assert (error.kind, error.status, error.message) == (today.kind, today.status, today.message)


async def test_a_101_with_frames_after_it_is_adopted() -> None:
    def upgrade_and_answer(req: Any) -> bytes:  # valid, with frames after it
        server = ServerProtocol(state=State.OPEN)
        for event in response("r1", "Hel", "lo"):
            server.send_text(json.dumps(event).encode())
        frames = b"".join(server.data_to_send())
        return accepting(Connection="keep-alive, Upgrade")(req) + frames

    with Answering(upgrade_and_answer, connections=1) as srv:
        ahead = await ahead_of(srv.url, request("hi"))
        assert ahead.open and ahead.error is None and len(ahead.early) == 4
        ch = channel(srv.url, ahead, retry_policy=ONCE)
        events = await collect(ch, request("hi"))
        await ch.aclose()
    assert text_of(events) == "Hello" and events[-1] == TurnFinished("completed", None, "r1")
