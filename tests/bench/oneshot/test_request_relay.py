"""The recording relay against real loopback servers: bytes pass unchanged both ways,
and each request is stamped between the client's send and the server's receipt."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import closing

import pytest
from websockets.sync.client import connect
from websockets.sync.server import ServerConnection, serve

from spark_cli.bench.oneshot.request_relay import RequestRelay

_ANSWER = b'{"type": "response.completed", "usage": {"output_tokens": 4321}}'


@pytest.fixture
def http_server() -> Iterator[tuple[int, list[float]]]:
    """A one-connection-at-a-time HTTP server: reads one request, answers with usage."""
    listener = socket.create_server(("127.0.0.1", 0))
    received: list[float] = []

    def serve_once() -> None:
        conn, _ = listener.accept()
        with conn:
            data = b""
            while b"\r\n\r\n" not in data or not data.endswith(b"}"):
                data += conn.recv(65536)
            received.append(time.monotonic())
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(_ANSWER)
                         + _ANSWER)

    thread = threading.Thread(target=serve_once, daemon=True)
    thread.start()
    yield listener.getsockname()[1], received
    thread.join(5)
    listener.close()


def test_an_http_request_is_stamped_between_send_and_receipt(http_server):
    port, received = http_server
    body = json.dumps({"model": "lorem", "input": "x" * 20_000}).encode()
    with closing(RequestRelay("127.0.0.1", port))  as relay:
        client = socket.create_connection(("127.0.0.1", relay.port))
        before = time.monotonic()
        client.sendall(b"POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n"
                       % len(body) + body)
        reply = b""
        while not reply.endswith(_ANSWER):
            reply += client.recv(65536)
        client.close()
        recording = relay.take()
    assert reply.startswith(b"HTTP/1.1 200 OK\r\n")  # passed through unchanged
    [arrival] = recording.arrivals
    assert (arrival.kind, arrival.target, arrival.generate) == ("http", "POST /v1/responses",
                                                                True)
    assert before <= arrival.at <= received[0]
    assert recording.first_answer_at == arrival.at
    assert recording.output_tokens == 4321


@pytest.fixture
def ws_server() -> Iterator[tuple[int, list[tuple[float, str]]]]:
    """A websockets server: stamps each message it reads, answers the real one with usage."""
    received: list[tuple[float, str]] = []

    def handler(ws: ServerConnection) -> None:
        for message in ws:
            received.append((time.monotonic(), str(message)))
            if '"generate": false' not in str(message):
                ws.send(_ANSWER.decode())

    with serve(handler, "127.0.0.1", 0, compression=None) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        yield server.socket.getsockname()[1], received
        server.shutdown()
        thread.join(5)


def test_websocket_messages_are_stamped_between_send_and_receipt(ws_server):
    port, received = ws_server
    with closing(RequestRelay("127.0.0.1", port))  as relay:
        with connect(f"ws://127.0.0.1:{relay.port}/v1/responses", compression=None) as ws:
            ws.send(json.dumps({"type": "response.create", "generate": False}))
            before = time.monotonic()
            ws.send(json.dumps({"type": "response.create", "input": "y" * 100_000}))
            answer = ws.recv(timeout=5)
        recording = relay.take()
        assert relay.take().arrivals == ()  # take() forgets what it handed over
    assert answer == _ANSWER.decode()
    warm, real = recording.arrivals
    assert (warm.kind, warm.target, warm.generate) == ("ws", "response.create", False)
    assert (real.kind, real.target, real.generate) == ("ws", "response.create", True)
    assert before <= real.at <= received[1][0]
    assert recording.answers == (real,) and recording.first_answer_at == real.at
    assert recording.output_tokens == 4321


def test_a_relay_whose_engine_is_gone_drops_the_client():
    spare = socket.create_server(("127.0.0.1", 0))
    port = spare.getsockname()[1]
    spare.close()  # nothing listens there now
    with closing(RequestRelay("127.0.0.1", port))  as relay:
        client = socket.create_connection(("127.0.0.1", relay.port), timeout=5)
        assert client.recv(10) == b""  # closed at once, no hang
        client.close()
        assert relay.take().arrivals == ()
