"""send_ahead: the turn's request sent on a blocking socket before asyncio is imported,
and what it records when that fails (run on a thread here: the servers share the loop)."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from typing import Any

import pytest
from websockets.exceptions import InvalidStatus
from websockets.protocol import State

from spark_cli.protocol.channel import Message, TurnRequest
from spark_cli.transport.fast.ws_ahead import WsAhead
from spark_cli.transport.fast.ws_ahead import send_ws as send_ahead
from spark_cli.transport.ws_wire import create_payload
from tests.transport.ws.raw_ws_server import RawServer, Script, response

KEY = "sk-test-0123456789abcdef"


def request(text: str = "hi") -> TurnRequest:
    return TurnRequest("spark-mini", (Message("user", text),), instructions="be brief")


async def ahead_of(url: str, req: TurnRequest, **options: Any) -> WsAhead:
    options.setdefault("connect_timeout", 5.0)
    ahead = await asyncio.to_thread(send_ahead, url, KEY, req, **options)
    assert ahead is not None
    return ahead


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_only_plain_ws_urls_are_sent_ahead() -> None:
    for url in ("wss://api.openai.com/v1/responses", "https://api.openai.com/v1",
                "http://127.0.0.1:9/v1"):
        assert send_ahead(url, KEY, request(), connect_timeout=0.1) is None


async def test_the_frame_leaves_with_the_handshake_the_channel_makes() -> None:
    with RawServer(Script()) as srv:
        before = time.perf_counter()
        ahead = await ahead_of(srv.url, request(), extra_headers={"X-Extra": "1"})
        after = time.perf_counter()
        ahead.close()
    assert ahead.error is None and ahead.payload == create_payload(request(), None)
    assert ahead.at is not None and before < ahead.at < after
    assert ahead.protocol is not None and ahead.protocol.state is State.OPEN
    assert ahead.response is not None and ahead.response.status_code == 101
    assert ahead.request is not None
    headers = ahead.request.headers
    assert headers["Authorization"] == f"Bearer {KEY}"
    assert headers["User-Agent"] == "spark" and headers["X-Extra"] == "1"
    assert "Sec-WebSocket-Extensions" not in headers  # compression=None, as the channel
    ((number, frame),) = srv.creates()
    assert number == 1 and frame == json.loads(create_payload(request(), None))


async def test_frames_that_came_with_the_101_are_kept() -> None:
    early = response("r0", "early")
    with RawServer(Script(early)) as srv:
        ahead = await ahead_of(srv.url, request())
        ahead.close()
    assert [json.loads(frame.data) for frame in ahead.early] == early


async def test_a_close_with_the_101_hands_the_connection_over_unsent() -> None:
    with RawServer(Script(close=(1011, "overloaded"))) as srv:
        ahead = await ahead_of(srv.url, request())
        assert ahead.open  # the channel adopts it and meets the close as it would today
        ahead.close()
    assert ahead.payload is None and ahead.at is None and ahead.error is None
    assert ahead.protocol is not None and ahead.protocol.state is State.CLOSING
    assert srv.creates() == []


async def test_a_refused_connection_is_recorded_as_asyncio_would_raise_it() -> None:
    port = free_port()
    ahead = await ahead_of(f"ws://127.0.0.1:{port}/v1/responses", request())
    assert isinstance(ahead.error, ConnectionRefusedError)
    assert str(ahead.error) == f"[Errno 111] Connect call failed ('127.0.0.1', {port})"
    assert ahead.sock is None and not ahead.open and ahead.payload is None


async def test_a_handshake_refusal_is_recorded_with_its_response(ws_server: Any) -> None:
    async def never(*_: Any) -> None:
        raise AssertionError("no frame expected")

    async with ws_server(never, reject=401, reject_body='{"error": {"message": "bad key"}}') as srv:
        ahead = await ahead_of(srv.url, request())
    assert isinstance(ahead.error, InvalidStatus)
    assert ahead.error.response.status_code == 401
    assert b"bad key" in bytes(ahead.error.response.body or b"")
    assert not ahead.open and ahead.payload is None


async def test_a_silent_server_times_out_once_within_the_connect_timeout() -> None:
    with socket.create_server(("127.0.0.1", 0)) as silent:  # accepts, never answers
        url = f"ws://127.0.0.1:{silent.getsockname()[1]}/v1/responses"
        started = time.monotonic()
        ahead = await ahead_of(url, request(), connect_timeout=0.3)
        took = time.monotonic() - started
    assert type(ahead.error) is TimeoutError  # in connect()'s words
    assert str(ahead.error) == "timed out during opening handshake"
    assert 0.25 < took < 3.0
    assert not ahead.open


async def test_a_redirect_is_left_to_the_channel_which_follows_it(ws_server: Any) -> None:
    async def never(*_: Any) -> None:
        raise AssertionError("no frame expected")

    async with ws_server(never, reject=302, reject_headers={"Location": "/elsewhere"}) as srv:
        ahead = await ahead_of(srv.url, request())
    assert ahead.error is None and not ahead.open  # the channel connects as today


@pytest.mark.parametrize("reachable", [True, False])
async def test_send_ahead_never_imports_asyncio(reachable: bool) -> None:
    code = (
        "import sys\n"
        "from spark_cli.protocol.channel import Message, TurnRequest\n"
        "from spark_cli.transport.fast.ws_ahead import send_ws as send_ahead\n"
        "ahead = send_ahead(sys.argv[1], 'k', TurnRequest('m', (Message('user', 'hi'),)),"
        " connect_timeout=5)\n"
        "print(ahead.payload is not None, ahead.error is not None, 'asyncio' in sys.modules)\n"
        "ahead.close()\n"
    )
    with RawServer(*([Script()] if reachable else [])) as srv:
        url = srv.url if reachable else f"ws://127.0.0.1:{free_port()}/v1/responses"
        done = await asyncio.to_thread(
            subprocess.run, [sys.executable, "-c", code, url], capture_output=True, text=True,
            timeout=60, check=True)
    sent, failed, asyncio_loaded = done.stdout.split()
    assert (sent, failed) == (("True", "False") if reachable else ("False", "True"))
    assert asyncio_loaded == "False"
    if reachable:
        assert [f["input"][0]["content"] for _, f in srv.creates()] == ["hi"]
