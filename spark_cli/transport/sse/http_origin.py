"""One HTTP origin a client POSTs to: where to connect, and the exact request head it sends.

Shared by the lean client (:mod:`h11_client`) and the head start
(:mod:`http_ahead`), so a request sent ahead on a blocking socket is, byte for
byte, the one the client would have sent. No asyncio here, and h11 only when
asked: the head start imports this before the event loop exists, and writes
its request with :meth:`Origin.plain_post` (h11 and the ``inspect`` its
dataclasses load wait until the model has started).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from spark_cli.transport.sse.http_wire import USER_AGENT

if TYPE_CHECKING:
    import h11

MAX_HEAD = 100 * 1024
"""Largest response head accepted (httpcore's limit; h11's default is 16 KiB)."""

_TOKEN = b"!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
"""A header name's characters (RFC 9110 tchar, h11's ``token``)."""
_VCHAR = bytes(range(0x21, 0x7F))
"""A request target's characters, and a header value's besides inner spaces and tabs."""
_FRAMING = (b"content-length", b"transfer-encoding")
"""Names h11 rewrites or checks against each other: left to h11."""


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
        import h11  # deferred: launch -> request

        return h11.Request(method=b"POST", target=target, headers=self._headers(body))

    def plain_post(self, target: bytes, body: bytes) -> bytes | None:
        """The bytes h11 writes for :meth:`post` and ``body`` (:func:`request_bytes`),
        made without h11; None when the target or a header is anything but plainly
        valid (an ASCII token name, visible ASCII with inner blanks, no framing header
        of the caller's): h11 then decides, and reports what it refuses. What h11
        writes: the request line, the Host header first and then the others in order,
        each ``name: value``, a blank line, the body (its length is in the head)."""
        headers = self._headers(body)
        if not target or target.translate(None, _VCHAR) or not all(
                _plain(name, value) for name, value in headers[:-2]):
            return None
        lines = [b"POST %s HTTP/1.1\r\n" % target]
        lines += [b"%s: %s\r\n" % (name, value) for name, value in headers
                  if name.lower() == b"host"]
        lines += [b"%s: %s\r\n" % (name, value) for name, value in headers
                  if name.lower() != b"host"]
        lines += [b"\r\n", body]
        return b"".join(lines)

    def _headers(self, body: bytes) -> list[tuple[bytes, bytes]]:
        return [*self.head, (b"Content-Length", str(len(body)).encode()),
                (b"Content-Type", b"application/json")]


def _plain(name: bytes, value: bytes) -> bool:
    """A header h11 sends exactly as given."""
    if not name or name.translate(None, _TOKEN) or name.lower() in _FRAMING:
        return False
    if not value:
        return True
    return (not value.translate(None, _VCHAR + b" \t")
            and value[:1] not in b" \t" and value[-1:] not in b" \t")


def new_connection() -> h11.Connection:
    """A client-side h11 state machine with the head size limit the clients use."""
    import h11  # deferred: launch -> request

    return h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEAD)


def request_bytes(conn: h11.Connection, head: h11.Request, body: bytes) -> bytes:
    """Everything to write for one request (head, body, end) on ``conn``."""
    import h11  # deferred: launch -> request

    data = conn.send(head) or b""
    data += conn.send(h11.Data(data=body)) or b""
    return data + (conn.send(h11.EndOfMessage()) or b"")
