"""Reading a client's bytes as a server would, to say when each request was complete (sans-I/O).

:class:`RequestSniffer` returns an :class:`Arrival` per completed request: an HTTP request
at its end (h11), a WebSocket message at its last frame (websockets); ``"generate": false``
marks a warm-up. :class:`UsageSniffer` keeps the answer's length as the server reported it.
"""

from __future__ import annotations

import json
import re

import h11
from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.server import ServerProtocol

from spark_cli.record import record

_HEAD_END = b"\r\n\r\n"
_UPGRADE = re.compile(rb"^upgrade:[ \t]*websocket[ \t]*\r?$", re.IGNORECASE | re.MULTILINE)
_USAGE = re.compile(rb'"(?:output_tokens|completion_tokens)":\s*(\d+)')
_CARRY = 64
"""Bytes of one chunk kept for the next, so a figure split across chunks is still read."""


@record
class Arrival:
    """One complete request as the relay saw it arrive."""

    at: float
    """``time.monotonic()`` when the bytes that completed the request arrived."""
    kind: str
    """``"http"`` or ``"ws"``."""
    target: str
    """``"POST /v1/responses"`` for HTTP; the message's JSON ``type`` for the WebSocket."""
    generate: bool
    """Whether it asks for an answer: False for a warm-up (``"generate": false``) and for
    anything but a POST over HTTP."""


def _generate(body: bytes) -> tuple[str, bool]:
    """(JSON ``type`` or "", whether it asks for an answer) of a request body."""
    try:
        value = json.loads(body)
    except ValueError:  # not JSON (e.g. compressed): an ordinary request
        return "", True
    if not isinstance(value, dict):
        return "", True
    kind = value.get("type")
    return (kind if isinstance(kind, str) else ""), value.get("generate") is not False


class _Http:
    """HTTP/1.1 requests, one after another on a keep-alive connection (h11, server side)."""

    def __init__(self) -> None:
        self._conn = h11.Connection(h11.SERVER)
        self._target = ""
        self._body: list[bytes] = []

    def feed(self, data: bytes, now: float) -> list[Arrival]:
        self._conn.receive_data(data)
        found: list[Arrival] = []
        while True:
            event = self._conn.next_event()
            if event is h11.NEED_DATA or event is h11.PAUSED or isinstance(
                    event, h11.ConnectionClosed):
                return found
            if isinstance(event, h11.Request):
                self._target = f"{event.method.decode()} {event.target.decode()}"
                self._body = []
            elif isinstance(event, h11.Data):
                self._body.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                _kind, generate = _generate(b"".join(self._body))
                post = self._target.startswith("POST ")  # a GET (e.g. /models) asks no answer
                found.append(Arrival(now, "http", self._target, generate and post))
                rest, closed = self._conn.trailing_data  # the next request: a fresh cycle
                self._conn = h11.Connection(h11.SERVER)
                if rest:
                    self._conn.receive_data(bytes(rest))
                if closed:
                    self._conn.receive_data(b"")


class _WebSocket:
    """The upgrade request, then each complete data message (websockets, sans-I/O)."""

    def __init__(self) -> None:
        self._protocol = ServerProtocol(max_size=None)
        self._parts: list[bytes] = []

    def feed(self, data: bytes, now: float) -> list[Arrival]:
        self._protocol.receive_data(data)
        found: list[Arrival] = []
        for event in self._protocol.events_received():
            if isinstance(event, Request):  # answer it as the engine will, to read frames
                self._protocol.send_response(self._protocol.accept(event))
            elif isinstance(event, Frame) and event.opcode in (
                    Opcode.TEXT, Opcode.BINARY, Opcode.CONT):
                self._parts.append(bytes(event.data))
                if event.fin:
                    kind, generate = _generate(b"".join(self._parts))
                    self._parts = []
                    found.append(Arrival(now, "ws", kind, generate))
        self._protocol.data_to_send()  # what it would answer: the engine answers instead
        return found


class RequestSniffer:
    """One connection's client → server bytes in, the requests they complete out."""

    def __init__(self) -> None:
        self._head = b""
        self._reader: _Http | _WebSocket | _Ignore | None = None

    def feed(self, data: bytes, now: float) -> list[Arrival]:
        """The requests completed by ``data`` (arrived at ``now``), stamped ``now``."""
        if self._reader is None:
            self._head += data
            end = self._head.find(_HEAD_END)
            if end < 0:
                return []
            upgrade = _UPGRADE.search(self._head[:end]) is not None
            self._reader = _WebSocket() if upgrade else _Http()
            data, self._head = self._head, b""
        try:
            return self._reader.feed(data, now)
        except Exception:  # not HTTP, or a protocol error: the relay still relays
            self._reader = _Ignore()
            return []


class _Ignore:
    def feed(self, data: bytes, now: float) -> list[Arrival]:
        return []


class UsageSniffer:
    """Server → client bytes in; the last output-token figure the engine sent, out."""

    def __init__(self) -> None:
        self._carry = b""
        self.output_tokens: int | None = None

    def feed(self, data: bytes) -> None:
        window = self._carry + data
        for match in _USAGE.finditer(window):
            self.output_tokens = int(match.group(1))
        self._carry = window[-_CARRY:]
