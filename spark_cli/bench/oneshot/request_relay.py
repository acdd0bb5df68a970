"""A recording TCP relay: clients talk to the engine through it, and it notes when each
request arrived, the same way for every client.

Each connection is joined to a fresh one to the engine, two threads pumping the bytes
(``TCP_NODELAY`` both legs); a :class:`~.request_sniff.RequestSniffer` stamps each request
as its last byte is read, a ``UsageSniffer`` keeps the answer's token count.
:meth:`RequestRelay.take` hands over what was seen since the last call: one run's worth.
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass, field

from spark_cli.bench.oneshot.request_sniff import Arrival, RequestSniffer, UsageSniffer
from spark_cli.record import record

_CHUNK = 1 << 16


@record
class Recording:
    """What the relay saw since the last :meth:`RequestRelay.take`."""

    arrivals: tuple[Arrival, ...]
    """Every request, in order of arrival."""
    connections: int
    output_tokens: int | None
    """The largest answer length the engine reported on any of those connections."""

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
    """What the relay saw: requests as they completed, usage sniffers, connections."""

    arrivals: list[Arrival] = field(default_factory=list)
    usages: list[UsageSniffer] = field(default_factory=list)
    connections: int = 0


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
        """``http://127.0.0.1:PORT`` (the OpenAI base URL is ``url + "/v1"``)."""
        return f"http://127.0.0.1:{self.port}"

    def take(self) -> Recording:
        """Everything seen since the last call, then forget it."""
        with self._lock:
            log, self._log = self._log, _Log()
        counts = [u.output_tokens for u in log.usages if u.output_tokens is not None]
        return Recording(tuple(sorted(log.arrivals, key=lambda a: a.at)), log.connections,
                         max(counts) if counts else None)

    def close(self) -> None:
        """Stop accepting (connections still open finish on their own)."""
        self._closed = True
        try:
            self._listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._listener.close()
        self._thread.join(5)

    def __enter__(self) -> RequestRelay:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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
                self._log.connections += 1
                self._log.usages.append(usage)
            done = threading.Barrier(2)
            threading.Thread(target=self._client_to_engine, args=(client, upstream, done),
                             daemon=True).start()
            threading.Thread(target=_engine_to_client, args=(upstream, client, usage, done),
                             daemon=True).start()

    def _client_to_engine(self, client: socket.socket, upstream: socket.socket,
                          done: threading.Barrier) -> None:
        sniffer = RequestSniffer()
        try:
            while data := client.recv(_CHUNK):
                arrivals = sniffer.feed(data, time.monotonic())
                if arrivals:  # logged before the engine can answer it
                    with self._lock:
                        self._log.arrivals.extend(arrivals)
                upstream.sendall(data)
        except OSError:
            pass
        _half_close(upstream)
        _finish(done, client, upstream)


def _engine_to_client(upstream: socket.socket, client: socket.socket, usage: UsageSniffer,
                      done: threading.Barrier) -> None:
    try:
        while data := upstream.recv(_CHUNK):
            usage.feed(data)  # first: once the client has the bytes, they are counted
            client.sendall(data)
    except OSError:
        pass
    _half_close(client)
    _finish(done, client, upstream)


def _half_close(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def _finish(done: threading.Barrier, *socks: socket.socket) -> None:
    """Once both directions ended (or 30 s after one did: the other is stuck), close."""
    try:
        if done.wait(30) != 0:
            return  # the other pump closes
    except threading.BrokenBarrierError:
        for sock in socks:
            try:
                sock.shutdown(socket.SHUT_RDWR)  # wakes the stuck pump
            except OSError:
                pass
    for sock in socks:
        sock.close()
