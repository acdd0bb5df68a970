"""A WebSocket server on a thread, byte-exact: websockets' sans-I/O ServerProtocol on a
plain socket, so a test decides what goes into one write (the 101 with frames after it in
the same segment, a close frame right after the 101) and sees every frame the client sent.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any, Self

from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.protocol import State
from websockets.server import ServerProtocol


class Script:
    """One connection: frames written with the 101 (``early``), then a close (``close``:
    code and reason) or, once a ``response.create`` arrives, ``answer``'s frames."""

    def __init__(self, early: list[dict[str, Any]] | None = None, *,
                 close: tuple[int, str] | None = None,
                 answer: list[dict[str, Any]] | None = None) -> None:
        self.early = early or []
        self.close = close
        self.answer = answer or []


def response(rid: str, *pieces: str) -> list[dict[str, Any]]:
    """A well-formed response's events: created, the deltas, completed."""
    events: list[dict[str, Any]] = [{"type": "response.created", "response": {"id": rid}}]
    events += [{"type": "response.output_text.delta", "delta": p} for p in pieces]
    events.append({"type": "response.completed", "response": {"id": rid, "status": "completed"}})
    return events


class _Listening:
    """A listener on 127.0.0.1 served by ``_serve`` on a thread, as a context manager."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"ws://127.0.0.1:{self._listener.getsockname()[1]}/v1/responses"
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._listener.close()
        self._thread.join(10)

    def _serve(self) -> None:
        raise NotImplementedError

    def _accepted(self, count: int) -> Iterator[socket.socket]:
        """Up to ``count`` connections, one at a time (closed after each), until closed."""
        for _ in range(count):
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(10)
                yield conn


class RawServer(_Listening):
    """Serves ``scripts`` on 127.0.0.1, one connection each, in order."""

    def __init__(self, *scripts: Script) -> None:
        self._scripts = list(scripts)
        self.received: list[tuple[int, dict[str, Any]]] = []
        """(connection number, client frame)."""
        super().__init__()

    def creates(self) -> list[tuple[int, dict[str, Any]]]:
        return [(n, f) for n, f in self.received if f.get("type") == "response.create"]

    def _serve(self) -> None:
        for number, (conn, script) in enumerate(
                zip(self._accepted(len(self._scripts)), self._scripts, strict=False), 1):
            self._one(conn, number, script)

    def _one(self, conn: socket.socket, number: int, script: Script) -> None:
        protocol = ServerProtocol()
        events: list[Any] = []
        while not events:
            protocol.receive_data(conn.recv(65536))
            events = protocol.events_received()
        request = events[0]
        assert isinstance(request, Request)
        protocol.send_response(protocol.accept(request))
        for event in script.early:
            protocol.send_text(json.dumps(event).encode())
        if script.close is not None:
            protocol.send_close(*script.close)
        conn.sendall(b"".join(protocol.data_to_send()))  # one write: one segment
        while protocol.state is not State.CLOSED:
            try:
                data = conn.recv(65536)
            except OSError:
                data = b""
            if data:
                protocol.receive_data(data)
            else:
                protocol.receive_eof()
            for event in protocol.events_received():
                if isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                    frame = json.loads(event.data)
                    self.received.append((number, frame))
                    if frame.get("type") == "response.create" and protocol.state is State.OPEN:
                        for answer in script.answer:
                            protocol.send_text(json.dumps(answer).encode())
            for out in protocol.data_to_send():
                if out:
                    conn.sendall(out)
            if not data:
                return


class Answering(_Listening):
    """Answers every connection's handshake request with ``answer(request)`` (raw bytes:
    ``b""`` closes at once), then reads until the client closes; ``connections`` of them."""

    def __init__(self, answer: Callable[[Request], bytes], connections: int = 2) -> None:
        self._answer = answer
        self._connections = connections
        super().__init__()

    def _serve(self) -> None:
        for conn in self._accepted(self._connections):
            protocol = ServerProtocol()
            events: list[Any] = []
            while not events:
                protocol.receive_data(conn.recv(65536))
                events = protocol.events_received()
            answer = self._answer(events[0])
            if not answer:
                continue
            conn.sendall(answer)
            with contextlib.suppress(OSError):
                while conn.recv(65536):
                    pass


def accepting(**headers: str | None) -> Callable[[Request], bytes]:
    """websockets' server's 101, headers changed (None: removed)."""
    def answer(request: Request) -> bytes:
        response = ServerProtocol().accept(request)
        for name, value in headers.items():
            if name in response.headers:
                del response.headers[name]
            if value is not None:
                response.headers[name] = value
        return response.serialize()

    return answer
