"""A lean streaming HTTP/1.1 client (h11 over asyncio streams) that behaves as httpx does.

Importing httpx costs a one-shot most of its start-up. Its saving: docs/benchmarks.md
``## Ledger`` (``h11``); paired: `spark bench oneshot --no-docs` with and without
``SPARK_PLAIN=h11``."""

from __future__ import annotations

import asyncio
import os
import socket
import ssl
import time
import zlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

import h11

from spark_cli.transport.fast.http_ahead import HttpAhead, Origin, new_connection, request_bytes
from spark_cli.transport.http_lines import LineSplitter, body_decoder, text_decoder
from spark_cli.transport.http_wire import (
    ConnectError,
    ConnectTimeout,
    DecodingError,
    Exchange,
    ReadError,
    RemoteProtocolError,
    StreamClosed,
    TransportError,
    WriteTimeout,
)

READ_BYTES = 64 * 1024
KEEPALIVE_EXPIRY = 5.0


def tls_context(trust_env: bool) -> ssl.SSLContext:
    """Verifying TLS as httpx sets it up, offering HTTP/1.1 only."""
    if trust_env and os.environ.get("SSL_CERT_FILE"):
        ctx = ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
    elif trust_env and os.environ.get("SSL_CERT_DIR"):
        ctx = ssl.create_default_context(capath=os.environ["SSL_CERT_DIR"])
    else:
        try:
            import certifi  # deferred: launch -> request
        except ImportError:
            ctx = ssl.create_default_context()
        else:
            ctx = ssl.create_default_context(cafile=certifi.where())
    ctx.set_alpn_protocols(["http/1.1"])
    return ctx


class _Connection:
    """One socket and its h11 state machine, listed in its client's ``open`` set until closed."""

    __slots__ = ("expires", "h11", "open", "reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 open_set: set[_Connection]) -> None:
        self.reader = reader
        self.writer = writer
        self.h11 = new_connection()
        self.expires = 0.0
        self.open = open_set
        open_set.add(self)

    def poll(self) -> Any:
        """h11's next event from the bytes already received (``h11.NEED_DATA``: none)."""
        try:
            return self.h11.next_event()
        except h11.RemoteProtocolError as exc:
            raise RemoteProtocolError(str(exc)) from exc

    async def next_event(self) -> Any:
        conn = self.h11
        while True:
            event = self.poll()
            if event is not h11.NEED_DATA:
                return event
            try:
                data = await self.reader.read(READ_BYTES)
            except OSError as exc:
                raise ReadError("") from exc  # httpx says nothing more either (anyio's words)
            if not data and conn.their_state is h11.SEND_RESPONSE:
                raise RemoteProtocolError("Server disconnected without sending a response.")
            conn.receive_data(data)

    def usable(self) -> bool:
        return (time.monotonic() < self.expires and not self.reader.at_eof()
                and not self.writer.is_closing())

    def close(self) -> None:
        self.open.discard(self)
        self.writer.close()


class H11Response:
    """A streamed response whose body is read once."""

    __slots__ = ("_client", "_conn", "_done", "headers", "status_code")
    gathers = True

    def __init__(self, client: H11Client, conn: _Connection,
                 head: h11.Response | h11.InformationalResponse) -> None:
        self._client = client
        self._conn: _Connection | None = conn
        self._done = False
        self.status_code = head.status_code
        headers: dict[str, str] = {}
        for name, value in head.headers:
            key = name.decode("latin-1")
            text = value.decode("latin-1")
            headers[key] = f"{headers[key]}, {text}" if key in headers else text
        self.headers: Mapping[str, str] = headers
        """Lower-case names (h11 lowers them); repeated headers joined with ", "."""

    async def _chunks(self) -> AsyncIterator[bytes]:
        """The body: every chunk already received in one piece (a lone chunk at once)."""
        decode = body_decoder(self.headers.get("content-encoding", ""))
        while True:
            conn = self._conn
            if conn is None:
                raise StreamClosed()
            event = await conn.next_event()
            parts: list[bytes] = []
            failed: RemoteProtocolError | None = None
            while type(event) is h11.Data:
                parts.append(event.data)
                try:
                    event = conn.poll()
                except RemoteProtocolError as exc:  # after the chunks before it go up
                    failed, event = exc, None
            if parts:
                data = bytes(parts[0]) if len(parts) == 1 else b"".join(parts)
                if decode is not None:
                    try:
                        data = decode(data)
                    except zlib.error as exc:
                        raise DecodingError(f"Error decoding content: {exc}") from exc
                if data:
                    yield data
            if failed is not None:
                raise failed
            if type(event) is h11.EndOfMessage or event is h11.PAUSED:
                break  # PAUSED: after a 101 (as httpcore: an empty body)
        self._done = True
        self._release()

    async def aread(self) -> bytes:
        return b"".join([chunk async for chunk in self._chunks()])

    async def aiter_line_batches(self) -> AsyncIterator[list[str]]:
        """The lines each read completes, in one list (one hop up per read)."""
        decode = text_decoder(self.headers.get("content-type", "")).decode
        lines = LineSplitter()
        split = lines.split
        async for chunk in self._chunks():
            batch = split(decode(chunk))
            if batch:
                yield batch
        batch = lines.flush(decode(b"", True))
        if batch:
            yield batch

    def _release(self) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        state = conn.h11
        if (self._done and state.our_state is h11.DONE and state.their_state is h11.DONE
                and not self._client._closed):
            state.start_next_cycle()
            conn.expires = time.monotonic() + KEEPALIVE_EXPIRY
            self._client._idle.append(conn)
        else:
            conn.close()

    async def aclose(self) -> None:
        self._release()


class H11Exchange(Exchange):
    __slots__ = ()

    def __init__(self, client: H11Client, target: bytes, body: bytes) -> None:
        super().__init__()
        self.task = asyncio.ensure_future(client._exchange(self, target, body))


class H11Client:
    """POSTs to one origin (``base_url``), keeping idle connections for the next turn."""

    def __init__(
        self,
        base_url: str,
        headers: Mapping[str, str],
        *,
        connect_timeout: float,
        write_timeout: float,
        trust_env: bool,
        ahead: HttpAhead | None = None,
    ) -> None:
        self._origin = Origin(base_url, headers)
        self._https = self._origin.https
        self._connect_timeout = connect_timeout
        self._write_timeout = write_timeout
        self.tls = tls_context(trust_env) if self._https else None
        """Verifying TLS for https; None for plain http (no CA bundle loaded)."""
        self._idle: list[_Connection] = []
        self._open: set[_Connection] = set()
        self._closed = False
        self._ahead = ahead
        """A request sent ahead, adopted by the first POST of the same bytes."""

    def post(self, path: str, body: bytes) -> H11Exchange:
        if self._closed:
            raise RuntimeError("Cannot send a request, as the client has been closed.")
        return H11Exchange(self, self._origin.target(path), body)

    async def aclose(self) -> None:
        self._closed = True
        self._idle = []
        ahead, self._ahead = self._ahead, None
        if ahead is not None:
            ahead.close()
        for conn in list(self._open):  # idle ones and any still streaming
            conn.close()

    async def _exchange(self, exchange: H11Exchange, target: bytes, body: bytes) -> H11Response:
        ahead, self._ahead = self._ahead, None
        state = None if ahead is None else self._state_after(ahead, target, body)
        if ahead is not None and state is None:
            ahead.close()
            ahead = None
        if ahead is not None and state is not None:
            conn = await self._adopt(ahead, state)
        else:
            conn = self._reuse() or await self._connect()
        try:
            if ahead is None:
                await self._send(conn, exchange, target, body)
            elif ahead.write_timed_out:
                raise WriteTimeout("")
            elif ahead.at is not None:
                exchange.at = ahead.at
                exchange.left.set()
            while True:
                event = await conn.next_event()
                if type(event) is h11.Response or (
                        type(event) is h11.InformationalResponse and event.status_code == 101):
                    return H11Response(self, conn, event)
                # another InformationalResponse (100 Continue): read on
        except BaseException:
            conn.close()
            raise

    async def _send(self, conn: _Connection, exchange: H11Exchange, target: bytes,
                    body: bytes) -> None:
        try:
            data = request_bytes(conn.h11, self._origin.post(target, body), body)
        except h11.LocalProtocolError as exc:  # e.g. a newline in a header value
            raise TransportError(str(exc)) from exc
        try:
            async with asyncio.timeout(self._write_timeout):
                conn.writer.write(data)
                await conn.writer.drain()
        except TimeoutError as exc:
            raise WriteTimeout("") from exc
        except OSError:
            pass  # as httpcore: the server may have answered (a 413, a 401) and closed
        else:
            exchange.at = time.perf_counter()
            exchange.left.set()

    def _state_after(self, ahead: HttpAhead, target: bytes, body: bytes) -> h11.Connection | None:
        """h11's state after this POST if it writes the very bytes sent ahead; else None."""
        state = new_connection()
        try:
            data = request_bytes(state, self._origin.post(target, body), body)
        except h11.LocalProtocolError:
            return None
        return state if data == ahead.data else None

    async def _adopt(self, ahead: HttpAhead, state: h11.Connection) -> _Connection:
        """The connection a request was sent ahead on (its connect failure raised as ours)."""
        if ahead.error is not None:
            raise connect_failure(ahead.error) from ahead.error
        sock, ahead.sock = ahead.sock, None  # the connection owns it from here
        assert sock is not None
        try:
            reader, writer = await asyncio.open_connection(sock=sock)
        except OSError as exc:
            sock.close()
            raise ConnectError("All connection attempts failed") from exc
        conn = _Connection(reader, writer, self._open)
        conn.h11 = state
        return conn

    def _reuse(self) -> _Connection | None:
        while self._idle:
            conn = self._idle.pop()
            if conn.usable():
                return conn
            conn.close()
        return None

    async def _connect(self) -> _Connection:
        host, port = self._origin.host, self._origin.port
        try:
            async with asyncio.timeout(self._connect_timeout):
                reader, writer = await asyncio.open_connection(
                    host, port, ssl=self.tls, happy_eyeballs_delay=0.25,
                    server_hostname=host if self.tls is not None else None)
        except OSError as exc:
            raise connect_failure(exc) from exc
        return _Connection(reader, writer, self._open)


def connect_failure(exc: OSError) -> TransportError:
    """A failed connect in httpx's words (anyio's for a refusal)."""
    if isinstance(exc, TimeoutError):
        return ConnectTimeout("")
    if isinstance(exc, socket.gaierror | ssl.SSLError | ssl.CertificateError):
        return ConnectError(str(exc))
    return ConnectError("All connection attempts failed")
