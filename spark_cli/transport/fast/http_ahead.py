"""The head start's HTTP request: written with h11 on a blocking socket before asyncio is
imported, adopted by the h11 client if its first POST is those very bytes. Its saving:
docs/benchmarks.md ``## Ledger`` (``head_start``); paired: `spark bench oneshot --no-docs`
with and without ``SPARK_PLAIN=head_start``."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import h11

from spark_cli.protocol.channel import TurnRequest
from spark_cli.transport import bodies
from spark_cli.transport.bodies import USER_AGENT
from spark_cli.transport.proxies import is_loopback, proxy_applies

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
        self.write_timed_out = False

    def close(self) -> None:
        """Drop the connection unread (a request the channel did not make after all)."""
        sock, self.sock = self.sock, None
        if sock is not None:
            sock.close()


class Origin:
    """A base URL's origin and path prefix, and its headers merged as httpx merges them."""

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
        """The head of a JSON POST (h11 raises ``LocalProtocolError`` for a bad header)."""
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


_PLAIN_PATH = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/")


def lean_fits(base_url: str) -> bool:
    """The lean client speaks to this base URL exactly as httpx would."""
    parts = urlsplit(base_url)
    return (parts.username is None and parts.password is None and not parts.query
            and not parts.fragment and not (set(parts.path) - _PLAIN_PATH)
            and parts.scheme.lower() in ("http", "https") and bool(parts.hostname))


def lean_route(base_url: str, transport: Any = None) -> bool:
    """Whether ``base_url`` gets the lean client: no test transport, no proxy, a plain URL."""
    return (transport is None and lean_fits(base_url)
            and not (not is_loopback(base_url) and proxy_applies(base_url, os.environ)))


KINDS = {"chat_sse": (bodies.CHAT_PATH, bodies.chat_body),
         "responses_sse": (bodies.RESPONSES_PATH, bodies.responses_body)}


def send_http(kind: str, base_url: str, api_key: str | None, request: TurnRequest, *,
               model: str | None = None, extra_headers: Mapping[str, str] | None = None,
               connect_timeout: float, write_timeout: float) -> HttpAhead | None:
    """Send ``request`` as channel ``kind`` would, now; None where the lean client would not.

    A failed connect is kept and raised by the client's first attempt."""
    if kind not in KINDS or not lean_route(base_url):
        return None
    path, make_body = KINDS[kind]
    try:
        origin = Origin(base_url, bodies.stream_headers(api_key, extra_headers))
        if origin.https:
            return None
        body = bodies.encode(make_body(request, model))
        target = origin.target(path)
        data = request_bytes(new_connection(), origin.post(target, body), body)
    except (ValueError, h11.LocalProtocolError):
        return None
    ahead = HttpAhead(data)
    try:
        sock = socket.create_connection((origin.host, origin.port), timeout=connect_timeout)
    except OSError as exc:  # refused, unresolvable, timed out: the first attempt says so
        ahead.error = exc
        return ahead
    ahead.sock = sock
    try:
        sock.settimeout(write_timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.sendall(data)
    except TimeoutError:
        ahead.write_timed_out = True
    except OSError:
        pass  # as the client (and httpcore): the server may have answered and closed
    else:
        ahead.at = time.perf_counter()
    sock.setblocking(False)
    return ahead
