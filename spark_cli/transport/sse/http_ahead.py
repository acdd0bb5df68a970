"""The head start: a one-shot turn's HTTP request, sent on a blocking socket before asyncio loads.

Importing asyncio costs a one-shot `spark edit` about as much as everything
else it does before its request leaves (~200 M instructions, 45-65 ms here).
So, where the lean client would carry the request (plain ``http://``, no proxy:
:func:`spark_cli.transport.sse.http_route.lean_route`), the request is written
first on a blocking socket (the same head, via :class:`Origin`, and the same
body, via :mod:`http_bodies`), and the model starts on it while the rest of
the client loads. The bytes are the ones h11 would write, made without it
(:meth:`Origin.plain_post`: importing h11 and what it loads costs ~15 ms
here). The lean client then adopts the socket for the channel's first POST if
h11 writes that POST as the very bytes sent (:meth:`H11Client` ``ahead=``,
which then has h11's state for it); anything else closes it unread.

Nothing here raises for the network: a failed connect is kept (``error``) and
raised by the client's first attempt exactly as its own connect would have
raised it, so messages, retries and backoff are the client's own and the failure
is not paid twice. A write that failed is treated as the client treats one (the
server may already have answered). ``https`` is not sent ahead: an ``ssl``
socket cannot be handed to asyncio's transports.

No asyncio here, nor in anything this imports.

Saves 34 ms of launch → request on Chat SSE and 43 ms on Responses SSE (paired runs,
2026-12-04; docs/benchmarks.md, Ledger); `spark bench oneshot` shows the path.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Mapping

from spark_cli.protocol.channel import TurnRequest
from spark_cli.transport.sse import http_bodies
from spark_cli.transport.sse.http_origin import Origin
from spark_cli.transport.sse.http_route import lean_route
from spark_cli.transport.sse.http_wire import HttpAhead

KINDS = {"chat_sse": (http_bodies.CHAT_PATH, http_bodies.chat_body),
         "responses_sse": (http_bodies.RESPONSES_PATH, http_bodies.responses_body)}


def send_ahead(kind: str, base_url: str, api_key: str | None, request: TurnRequest, *,
               model: str | None = None, extra_headers: Mapping[str, str] | None = None,
               connect_timeout: float, write_timeout: float) -> HttpAhead | None:
    """Send ``request`` as channel ``kind`` would, now; None where the lean client would
    not carry it (https, a proxy, an unusual URL) or the request cannot be made or is
    left to h11 (:meth:`Origin.plain_post`)."""
    if kind not in KINDS or not lean_route(base_url):
        return None
    path, make_body = KINDS[kind]
    try:
        origin = Origin(base_url, http_bodies.stream_headers(api_key, extra_headers))
        if origin.https:
            return None
        body = http_bodies.encode(make_body(request, model))
        data = origin.plain_post(origin.target(path), body)
    except ValueError:  # the client reports it itself
        return None
    if data is None:
        return None
    ahead = HttpAhead(data)
    try:
        sock = _connect(origin.host, origin.port, connect_timeout)
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


def _connect(host: str, port: int, timeout: float) -> socket.socket:
    """``socket.create_connection``, without ``getaddrinfo`` for a numeric host: that
    encodes the host with the idna codec, which imports ``stringprep`` and
    ``unicodedata`` (~2 ms here) for an address that needs no lookup."""
    for family in (socket.AF_INET, socket.AF_INET6):
        try:
            socket.inet_pton(family, host)
        except OSError:
            continue
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.settimeout(timeout)
            sock.connect((host, port))
        except BaseException:
            sock.close()
            raise
        return sock
    return socket.create_connection((host, port), timeout=timeout)
