"""A recording TCP relay to the engine: when each request arrived, the same way for every
client (`spark bench oneshot --codex` times clients it cannot instrument). The client's bytes
are read as a server would, sans-I/O (h11, websockets), each request stamped at its last byte.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import h11
from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.server import ServerProtocol

from spark_cli.record import record

_CHUNK = 1 << 16
_HEAD_END = b"\r\n\r\n"
_UPGRADE = re.compile(rb"^upgrade:[ \t]*websocket[ \t]*\r?$", re.IGNORECASE | re.MULTILINE)
_USAGE = re.compile(rb'"(?:output_tokens|completion_tokens)":\s*(\d+)')
_CARRY = 64
"""Bytes of one chunk kept for the next, so a figure split across chunks is still read."""


@record
class Arrival:
    """One complete request: ``time.monotonic()`` of its last byte, ``http`` or ``ws``,
    ``POST /v1/responses`` or the message's JSON ``type``, whether it asks for an answer (not a
    warm-up's ``"generate": false``, nor an HTTP GET)."""

    at: float
    kind: str
    target: str
    generate: bool


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


@record
class Recording:
    """The requests since the last :meth:`RequestRelay.take`, the largest answer's tokens."""

    arrivals: tuple[Arrival, ...]
    output_tokens: int | None

    @property
    def answers(self) -> tuple[Arrival, ...]:
        """The requests that asked for an answer (warm-ups left out)."""
        return tuple(a for a in self.arrivals if a.generate)

    @property
    def first_answer_at(self) -> float | None:
        answers = self.answers
        return answers[0].at if answers else None


@dataclass
class _Log:
    """What the relay saw: requests as they completed, each connection's usage sniffer."""

    arrivals: list[Arrival] = field(default_factory=list)
    usages: list[UsageSniffer] = field(default_factory=list)


class RequestRelay:
    """Relay ``127.0.0.1:<own port>`` → ``host:port``, recording request arrivals."""

    def __init__(self, host: str, port: int) -> None:
        self._target = (host, port)
        self._lock = threading.Lock()
        self._log = _Log()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._closed = False
        self._thread = threading.Thread(target=self._accept_loop, name="request-relay",
                                        daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return int(self._listener.getsockname()[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def take(self) -> Recording:
        """Everything seen since the last call, then forget it."""
        with self._lock:
            log, self._log = self._log, _Log()
        counts = [u.output_tokens for u in log.usages if u.output_tokens is not None]
        return Recording(tuple(sorted(log.arrivals, key=lambda a: a.at)),
                         max(counts) if counts else None)

    def close(self) -> None:
        """Stop accepting (connections still open finish on their own)."""
        self._closed = True
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        self._thread.join(5)

    def _accept_loop(self) -> None:
        while not self._closed:
            try:
                client, _addr = self._listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self._target, timeout=10)
            except OSError:
                client.close()  # the engine is gone: the client sees a reset
                continue
            upstream.settimeout(None)
            for sock in (client, upstream):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            usage = UsageSniffer()
            with self._lock:
                self._log.usages.append(usage)
            done = threading.Barrier(2)
            sniffer = RequestSniffer()

            def arrived(data: bytes, sniffer: RequestSniffer = sniffer) -> None:
                arrivals = sniffer.feed(data, time.monotonic())
                with self._lock:
                    self._log.arrivals.extend(arrivals)

            for pump in ((client, upstream, arrived, done), (upstream, client, usage.feed, done)):
                threading.Thread(target=_pump, args=pump, daemon=True).start()


def _pump(src: socket.socket, dst: socket.socket, seen: Callable[[bytes], None],
          done: threading.Barrier) -> None:
    """Copy ``src`` to ``dst``, each chunk ``seen`` first (before the other side can act)."""
    with contextlib.suppress(OSError):
        while data := src.recv(_CHUNK):
            seen(data)
            dst.sendall(data)
    with contextlib.suppress(OSError):
        dst.shutdown(socket.SHUT_WR)
    _finish(done, src, dst)


def _finish(done: threading.Barrier, *socks: socket.socket) -> None:
    """Once both directions ended (or 30 s after one did: the other is stuck), close."""
    try:
        if done.wait(30) != 0:
            return  # the other pump closes
    except threading.BrokenBarrierError:
        for sock in socks:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)  # wakes the stuck pump
    for sock in socks:
        sock.close()
