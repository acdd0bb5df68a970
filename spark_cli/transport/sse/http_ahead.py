"""The head start: a one-shot turn's HTTP request, sent on a blocking socket before asyncio loads.

Importing asyncio costs a one-shot about as much as everything else before its request.
Where the lean client would carry the request (plain ``http://``, no proxy:
:func:`~spark_cli.transport.sse.http_route.lean_route`), the request h11 would write
(:meth:`Origin.plain_post`, :mod:`http_bodies`) goes out first, and the lean client adopts
the socket if h11 writes its first POST as those very bytes; else it closes it unread.
Nothing here raises for the network: a failed connect is kept and raised by the client's
first attempt as its own. ``https`` is not sent ahead. No asyncio here, nor in anything this
imports. Kept by the ledger (docs/benchmarks.md); `spark bench oneshot` shows the path.
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
    ``unicodedata`` for an address that needs no lookup."""
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
