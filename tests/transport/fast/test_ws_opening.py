"""ws_opening: the opening handshake without ClientProtocol writes the bytes ClientProtocol
writes, takes only the 101s it surely accepts, and hands everything else to a
ClientProtocol that ends where the one that sent the request would have."""

from __future__ import annotations

import ipaddress
import string
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from websockets.client import ClientProtocol
from websockets.exceptions import InvalidHandshake, InvalidMessage, InvalidStatus
from websockets.frames import Frame
from websockets.headers import build_host
from websockets.http11 import Response
from websockets.protocol import State
from websockets.server import ServerProtocol
from websockets.uri import parse_uri

from spark_cli.transport.fast import websockets_lean
from spark_cli.transport.fast.ws_opening import Opening, host_header, opening_request, text_frame
from tests.transport.ws.raw_ws_server import accepting

HEADERS = {"X-Extra": "1", "Authorization": "Bearer sk-test"}


def protocol_request(url: str, key: str, headers: dict[str, str]) -> bytes:
    """What ws_ahead wrote before this module: ClientProtocol's own request."""
    protocol = ClientProtocol(parse_uri(url))
    protocol.key = key
    request = protocol.connect()
    request.headers.update(headers)
    request.headers.setdefault("User-Agent", "spark")
    return request.serialize()


@pytest.mark.parametrize("url", [
    "ws://127.0.0.1:8765/v1/responses",
    "ws://localhost/v1/responses?model=x",
    "ws://[::1]:9000/v1/responses",
    "ws://[fe80::1]/",
    "ws://user:pa%20ss@example.com:80/v1",
    "wss://api.openai.com/v1/responses",
    "wss://api.openai.com:8443/v1/responses",
])
@pytest.mark.parametrize("headers", [{}, HEADERS, {"User-Agent": "mine", "Host": "other"}])
def test_the_request_is_the_one_client_protocol_writes(url: str, headers: dict[str, str]):
    uri = parse_uri(url)
    key = "dGhlIHNhbXBsZSBub25jZQ=="
    assert opening_request(uri, key, headers).serialize() == protocol_request(url, key, headers)


def test_an_opening_sends_a_fresh_key_each_time() -> None:
    uri = parse_uri("ws://127.0.0.1:1/")
    first, second = Opening(uri, {}), Opening(uri, {})
    assert first.key != second.key
    assert first.request.headers["Sec-WebSocket-Key"] == first.key


hosts = st.one_of(
    st.ip_addresses().map(str),
    st.ip_addresses(v=6).map(lambda a: f"{a}%eth0"),
    st.text(string.ascii_letters + string.digits + ".-:[]%", max_size=40),
    st.text(max_size=20),
)


@settings(deadline=None)  # a noisy machine: no per-example time limit
@given(host=hosts, port=st.integers(0, 65535) | st.sampled_from([80, 443]), secure=st.booleans())
def test_the_host_header_is_the_one_build_host_writes(host: str, port: int, secure: bool):
    assert host_header(host, port, secure) == build_host(host, port, secure)


@settings(deadline=None)
@given(host=st.text(max_size=40).filter(lambda h: ":" not in h))
def test_a_host_without_a_colon_is_never_an_ipv6_address(host: str):
    try:
        version = ipaddress.ip_address(host).version
    except ValueError:
        return
    assert version == 4


@pytest.mark.parametrize("size", [0, 5, 125, 126, 65535, 65536, 100_000])
def test_the_text_frame_is_the_one_send_text_writes(size: int,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import websockets.frames

    monkeypatch.setattr(websockets.frames.secrets, "token_bytes", lambda n: b"\x01\x02\x03\x04")
    payload = ("é" * size)[:size]
    protocol = ClientProtocol(parse_uri("ws://127.0.0.1:1/"), state=State.OPEN)
    protocol.send_text(payload.encode())
    assert [text_frame(payload)] == protocol.data_to_send()


def server_answer(opening: Opening, **headers: str | None) -> bytes:
    """websockets' server's 101 to ``opening``'s request, headers changed (None: removed)."""
    server = ServerProtocol()
    server.receive_data(opening.request.serialize())
    (request,) = server.events_received()
    return accepting(**headers)(request)


def opened(*chunks: bytes) -> Opening:
    opening = Opening(parse_uri("ws://127.0.0.1:8765/v1/responses"), HEADERS)
    for chunk in chunks:
        opening.feed(chunk)
    return opening


def answered(**headers: str | None) -> tuple[Opening, bytes]:
    opening = opened()
    return opening, server_answer(opening, **headers)


def test_a_plain_101_is_taken_and_replays_open_in_client_protocol() -> None:
    opening, answer = answered()
    for cut in range(1, len(answer)):  # however the bytes arrive
        opening = opened()
        answer = server_answer(opening)
        opening.feed(answer[:cut])
        assert not opening.done
        opening.feed(answer[cut:])
        assert opening.done and opening.accepted()
    assert opening.response is not None and opening.response.status_code == 101
    protocol, early = opening.adopted()
    assert protocol.state is State.OPEN and early == [] and protocol.key == opening.key
    assert protocol.data_to_send() == []  # the request is not written again


@pytest.mark.parametrize("headers", [
    {"Connection": "Upgrade", "Upgrade": "WebSocket"},
    {"Connection": "upgrade"},
])
def test_case_does_not_matter(headers: dict[str, str]) -> None:
    opening, answer = answered(**headers)
    opening.feed(answer)
    assert opening.accepted() and opening.adopted()[0].state is State.OPEN


@pytest.mark.parametrize(("headers", "accepted_by_websockets"), [
    ({"Sec-WebSocket-Accept": "AAAAAAAAAAAAAAAAAAAAAAAAAAA="}, False),
    ({"Sec-WebSocket-Accept": None}, False),
    ({"Sec-WebSocket-Extensions": "permessage-deflate"}, False),
    ({"Sec-WebSocket-Protocol": "chat"}, False),
    ({"Upgrade": None}, False),
    ({"Upgrade": "h2c"}, False),
    ({"Connection": "close"}, False),
    ({"Connection": "keep-alive, Upgrade"}, True),  # fine, but for ClientProtocol to say
])
def test_any_other_101_is_left_to_client_protocol(
    headers: dict[str, str | None], accepted_by_websockets: bool
) -> None:
    opening, answer = answered(**headers)
    opening.feed(answer)
    assert opening.done and not opening.accepted()
    protocol = opening.protocol()
    assert (protocol.state is State.OPEN) is accepted_by_websockets
    if not accepted_by_websockets:
        assert isinstance(protocol.handshake_exc, InvalidHandshake)
        with pytest.raises(type(protocol.handshake_exc)):
            opening.adopted()


def test_frames_after_the_101_are_left_to_client_protocol() -> None:
    opening = opened()
    answer = server_answer(opening)
    server = ServerProtocol(state=State.OPEN)
    server.send_text(b'{"type": "early"}')
    server.send_close(1011, "overloaded")
    opening.feed(answer + b"".join(server.data_to_send()))
    assert opening.done and not opening.accepted()
    protocol = opening.protocol()
    response, text, _close = protocol.events_received()
    assert isinstance(response, Response) and protocol.state is State.CLOSING
    assert isinstance(text, Frame) and text.data == b'{"type": "early"}'


def test_a_refusal_is_named_by_client_protocol_as_before() -> None:
    opening = opened()
    refusal = ServerProtocol().reject(401, "bad key\n").serialize()
    opening.feed(refusal)
    assert opening.done and not opening.accepted()
    protocol = opening.protocol()
    assert isinstance(protocol.handshake_exc, InvalidStatus)
    assert protocol.handshake_exc.response.status_code == 401


@pytest.mark.parametrize("chunks", [[b""], [b"HTTP/1.1 101 Switching", b""],
                                    [b"SSH-2.0-OpenSSH_9.6\r\n"]])
def test_an_end_of_stream_or_garbage_is_named_by_client_protocol(chunks: list[bytes]) -> None:
    opening = opened(*chunks)
    assert opening.done and opening.failed and not opening.accepted()
    protocol = opening.protocol()
    assert isinstance(protocol.handshake_exc, InvalidMessage)
    assert str(protocol.handshake_exc) == "did not receive a valid HTTP response"


def test_an_end_of_stream_right_after_the_101_is_left_to_client_protocol() -> None:
    opening, answer = answered()
    opening.feed(answer)
    opening.feed(b"")  # ignored: the response was in
    assert opening.accepted()


def test_the_typing_preset_equals_websockets_typing() -> None:
    import websockets.typing as real

    assert type(real) is ModuleType  # the module itself, not a stand-in
    for name, value in websockets_lean.TYPING_PRESET.items():
        own = getattr(real, name)
        if hasattr(own, "__supertype__"):  # a NewType: equal by what it is
            assert (value.__name__, value.__supertype__) == (  # type: ignore[attr-defined]
                own.__name__, own.__supertype__)
        else:
            assert value == own
