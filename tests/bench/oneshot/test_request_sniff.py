"""The request sniffer: bytes in, the requests they complete (and when) out."""

from __future__ import annotations

import json

import pytest
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.uri import parse_uri

from spark_cli.bench.oneshot.request_relay import Arrival, RequestSniffer, UsageSniffer


def _post(body: bytes, path: str = "/v1/responses") -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


def test_an_http_request_is_stamped_when_its_last_byte_arrives():
    raw = _post(b'{"model": "lorem", "input": "hi"}')
    sniffer = RequestSniffer()
    assert sniffer.feed(raw[:30], 1.0) == []
    assert sniffer.feed(raw[30:-5], 2.0) == []
    assert sniffer.feed(raw[-5:], 3.0) == [Arrival(3.0, "http", "POST /v1/responses", True)]


def test_keep_alive_requests_in_one_read_are_each_found_and_warm_ups_and_gets_told_apart():
    raw = (_post(b'{"generate": false}') + _post(b'{"stream": true}', "/v1/chat/completions")
           + b"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n")
    found = RequestSniffer().feed(raw, 5.0)
    assert found == [Arrival(5.0, "http", "POST /v1/responses", False),
                     Arrival(5.0, "http", "POST /v1/chat/completions", True),
                     Arrival(5.0, "http", "GET /v1/models", False)]


def test_a_chunked_body_is_complete_at_its_last_chunk():
    head = b"POST /v1/responses HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    sniffer = RequestSniffer()
    assert sniffer.feed(head + b"5\r\nhello\r\n", 1.0) == []
    assert sniffer.feed(b"0\r\n\r\n", 1.5) == [Arrival(1.5, "http", "POST /v1/responses", True)]


def _ws_client() -> tuple[ClientProtocol, bytes]:
    client = ClientProtocol(parse_uri("ws://127.0.0.1:9/v1/responses"))
    client.send_request(client.connect())
    return client, client.data_to_send()[0]


def _ws_frame(client: ClientProtocol, message: dict[str, object], fin: bool = True) -> bytes:
    text = json.dumps(message).encode()
    client.send_frame(Frame(Opcode.TEXT, text, fin=fin))
    return b"".join(client.data_to_send())


def test_websocket_messages_after_the_upgrade_are_each_stamped():
    client, handshake = _ws_client()
    sniffer = RequestSniffer()
    assert sniffer.feed(handshake, 1.0) == []
    client.state = client.state.OPEN  # as if the 101 had come back
    warm = _ws_frame(client, {"type": "response.create", "generate": False})
    real = _ws_frame(client, {"type": "response.create", "input": "x" * 70_000})
    assert sniffer.feed(warm, 2.0) == [Arrival(2.0, "ws", "response.create", False)]
    assert sniffer.feed(real[:1000], 3.0) == []
    assert sniffer.feed(real[1000:], 4.0) == [Arrival(4.0, "ws", "response.create", True)]


def test_a_frame_sent_with_the_upgrade_in_one_write_is_found_too():
    client, handshake = _ws_client()
    client.state = client.state.OPEN
    ahead = handshake + _ws_frame(client, {"type": "response.create"})
    assert RequestSniffer().feed(ahead, 7.0) == [Arrival(7.0, "ws", "response.create", True)]


def test_a_fragmented_message_counts_once_at_its_last_fragment():
    client, handshake = _ws_client()
    sniffer = RequestSniffer()
    sniffer.feed(handshake, 1.0)
    client.state = client.state.OPEN
    client.send_frame(Frame(Opcode.TEXT, b'{"type": "response.', fin=False))
    first = b"".join(client.data_to_send())
    client.send_frame(Frame(Opcode.CONT, b'create"}', fin=True))
    last = b"".join(client.data_to_send())
    assert sniffer.feed(first, 2.0) == []
    assert sniffer.feed(last, 2.5) == [Arrival(2.5, "ws", "response.create", True)]


@pytest.mark.parametrize("junk", [b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n",
                                  b"NOT HTTP AT ALL\r\n\r\n"])
def test_bytes_that_are_not_http_give_no_request_and_no_error(junk: bytes):
    sniffer = RequestSniffer()
    assert sniffer.feed(junk, 1.0) == []
    assert sniffer.feed(_post(b"{}"), 2.0) == []


def test_usage_keeps_the_last_figure_even_split_across_reads():
    usage = UsageSniffer()
    usage.feed(b'data: {"usage": {"output_tokens": 0}}\n\n')
    assert usage.output_tokens == 0
    usage.feed(b'data: {"type": "response.incomplete", "usage": {"input_tokens": 9, "output_t')
    usage.feed(b'okens": 5000, "total_tokens": 5009}}\n\n')
    assert usage.output_tokens == 5000
    usage.feed(b'{"usage": {"completion_tokens": 12}}')
    assert usage.output_tokens == 12


def test_usage_is_none_when_the_engine_reported_none():
    usage = UsageSniffer()
    usage.feed(b"HTTP/1.1 401 Unauthorized\r\n\r\n")
    assert usage.output_tokens is None
