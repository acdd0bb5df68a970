"""One HTTP origin a client POSTs to: where to connect, and the exact request head it sends.

Shared by the lean client (:mod:`h11_client`) and the head start
(:mod:`http_ahead`), so a request sent ahead on a blocking socket is, byte for
byte, the one the client would have sent. No asyncio here: the head start
imports this before the event loop exists.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

import h11

from spark_cli.transport.sse.http_wire import USER_AGENT

MAX_HEAD = 100 * 1024
"""Largest response head accepted (httpcore's limit; h11's default is 16 KiB)."""


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
