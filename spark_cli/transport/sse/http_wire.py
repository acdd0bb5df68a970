"""What the SSE channels need from an HTTP client, the failures it reports, and the bytes
the lean client writes.

Two clients implement it: :mod:`h11_client` (lean, the direct path) and
:mod:`httpx_client` (httpx: proxies, test transports); the channel (:mod:`http_stream`)
sees only these names. Both raise the exceptions below, named after httpx's own, with
the library's exception as ``__cause__``. :class:`Origin` and :func:`request_bytes` are
the lean client's request, byte for byte, shared with the head start
(:func:`~spark_cli.transport.sse.http_route.send_ahead`): no asyncio here.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit

import h11

from spark_cli.transport.bodies import USER_AGENT

if TYPE_CHECKING:
    import asyncio

MAX_HEAD = 100 * 1024
"""Largest response head accepted (httpcore's limit; h11's default is 16 KiB)."""


class HttpAhead:
    """One request written ahead (or the failure to connect for it), for the client to adopt."""

    __slots__ = ("at", "data", "error", "sock", "write_timed_out")

    def __init__(self, data: bytes) -> None:
        self.data = data
        """The request's bytes (head and body), as h11 writes them."""
        self.sock: socket.socket | None = None
        self.error: OSError | None = None
        """Why the connection could not be opened (raised by the client's first attempt)."""
        self.at: float | None = None
        """``time.perf_counter()`` when the last byte of the request was written."""
        self.write_timed_out = False

    def close(self) -> None:
        """Drop the connection unread (a request the channel did not make after all)."""
        sock, self.sock = self.sock, None
        if sock is not None:
            sock.close()


class Origin:
    """Scheme, host, port and path prefix of a base URL, and the headers every request carries.

    Headers are merged as httpx merges them: its defaults (Host, Accept,
    Accept-Encoding, Connection, User-Agent) first, then the caller's, a later
    name (any case) replacing an earlier one in its place.
    """

    __slots__ = ("head", "host", "https", "port", "prefix")

    def __init__(self, base_url: str, headers: Mapping[str, str]) -> None:
        parts = urlsplit(base_url)
        self.https = parts.scheme.lower() == "https"
        self.host = parts.hostname or ""
        default_port = 443 if self.https else 80
        self.port = parts.port or default_port
        self.prefix = parts.path.rstrip("/") + "/"
        shown_host = f"[{self.host}]" if ":" in self.host else self.host
        if parts.port and parts.port != default_port:
            shown_host += f":{parts.port}"
        merged: dict[str, tuple[str, str]] = {}  # lower-case name -> (name, value), in order
        for name, value in (("Host", shown_host), ("Accept", "*/*"),
                            ("Accept-Encoding", "gzip, deflate"), ("Connection", "keep-alive"),
                            ("User-Agent", USER_AGENT), *headers.items()):
            merged[name.lower()] = (name, value)
        self.head = [(name.encode("ascii"), value.encode("ascii"))
                     for name, value in merged.values()]

    def target(self, path: str) -> bytes:
        """The request target for ``path`` under the base URL's path."""
        return (self.prefix + path.lstrip("/")).encode("ascii")

    def post(self, target: bytes, body: bytes) -> h11.Request:
        """The head of a JSON POST of ``body`` to ``target`` (h11 raises
        ``LocalProtocolError`` for a header it cannot send, e.g. one with a newline)."""
        return h11.Request(method=b"POST", target=target, headers=[
            *self.head, (b"Content-Length", str(len(body)).encode()),
            (b"Content-Type", b"application/json")])

def new_connection() -> h11.Connection:
    """A client-side h11 state machine with the head size limit the clients use."""
    return h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEAD)


def request_bytes(conn: h11.Connection, head: h11.Request, body: bytes) -> bytes:
    """Everything to write for one request (head, body, end) on ``conn``."""
    data = conn.send(head) or b""
    data += conn.send(h11.Data(data=body)) or b""
    return data + (conn.send(h11.EndOfMessage()) or b"")


class TransportError(Exception):
    """The connection failed or broke (httpx: ``TransportError`` / ``StreamError``)."""


class TimeoutException(TransportError):
    pass


class ConnectTimeout(TimeoutException):
    pass


class WriteTimeout(TimeoutException):
    pass


class ConnectError(TransportError):
    pass


class ReadError(TransportError):
    pass


class RemoteProtocolError(TransportError):
    """The server broke HTTP/1.1 (h11's words, e.g. ``illegal status line: ...``)."""


class DecodingError(TransportError):
    """A gzip or deflate body that does not decode (httpx raises its own, uncaught)."""


class StreamClosed(TransportError):
    def __init__(self) -> None:
        super().__init__("Attempted to read or stream content, but the stream has been closed.")


class Response(Protocol):
    status_code: int
    headers: Mapping[str, str]

    async def aread(self) -> bytes: ...

    def aiter_line_batches(self) -> AsyncIterator[list[str]]:
        """The lines of each chunk as it arrives, together (never an empty list)."""
        ...

    async def aclose(self) -> None: ...


class Exchange:
    """One POST in flight: ``task`` (set by the client's subclass) resolves to the response;
    ``left`` is set once the body was written, while the response headers are still on
    the way."""

    __slots__ = ("at", "left", "task")

    task: asyncio.Future[Response]

    def __init__(self) -> None:
        import asyncio  # deferred: launch -> request

        self.at: float | None = None
        """``time.perf_counter()`` when the body was written; None until then."""
        self.left = asyncio.Event()

    def sent_at(self) -> float:
        """When the request left; raises what stopped it if it never did (a transport
        that does not report the moment counts as sent when it answers)."""
        if self.at is None:
            self.task.result()  # the send failed: raise why (or it answered untraced)
            self.at = time.perf_counter()
        return self.at

    async def settle(self, response: Response | None) -> None:
        """Cancel the send if still in flight, else close the response it produced."""
        task = self.task
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
            return
        if response is None and not task.cancelled() and task.exception() is None:
            response = task.result()
        if response is not None:
            await response.aclose()


class HttpClient(Protocol):
    def post(self, path: str, body: bytes) -> Exchange:
        """Start POSTing ``body`` (JSON) to ``path`` under the base URL."""
        ...

    async def aclose(self) -> None: ...
