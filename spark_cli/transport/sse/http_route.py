"""How a POST reaches its server: which client carries it, and the head start.

The lean h11 client (:mod:`h11_client`) carries it unless httpx would do more (a proxy,
a test transport, an unusual URL): anything unsure goes to httpx, which loses nothing
but start-up time (:mod:`spark_cli.transport.proxies` tells a proxied URL). The head
start (:func:`send_ahead`) writes a one-shot's first POST with h11 on a blocking socket
before asyncio is imported; the lean client adopts that socket if its first POST is
those very bytes, else closes it unread. Nothing here imports asyncio. Kept by the
ledger (docs/benchmarks.md); `spark bench oneshot` shows launch -> request.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import h11

from spark_cli.protocol.channel import TurnRequest
from spark_cli.transport import bodies
from spark_cli.transport.proxies import is_loopback, proxy_applies
from spark_cli.transport.sse.http_wire import HttpAhead, Origin, new_connection, request_bytes

if TYPE_CHECKING:
    from spark_cli.transport.sse.http_wire import HttpClient

_PLAIN_PATH = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/")


def lean_fits(base_url: str) -> bool:
    """The lean client speaks to this base URL exactly as httpx would."""
    parts = urlsplit(base_url)
    return (parts.username is None and parts.password is None and not parts.query
            and not parts.fragment and not (set(parts.path) - _PLAIN_PATH)
            and parts.scheme.lower() in ("http", "https") and bool(parts.hostname))


def lean_route(base_url: str, transport: Any = None) -> bool:
    """Whether :func:`open_client` gives ``base_url`` the lean client.

    httpx is chosen (imported only then) when:
    - a test injects an httpx transport (``transport=``, e.g. ``httpx.MockTransport``);
    - a proxy applies from the environment (:func:`spark_cli.transport.proxies.proxy_applies`;
      loopback URLs never trust the environment);
    - the base URL has userinfo (httpx turns it into Basic auth), a query or a
      fragment, or a path that is not plain ASCII.
    """
    return (transport is None and lean_fits(base_url)
            and not (not is_loopback(base_url) and proxy_applies(base_url, os.environ)))


def open_client(
    base_url: str,
    headers: Mapping[str, str],
    *,
    connect_timeout: float,
    write_timeout: float,
    transport: Any = None,
    ahead: HttpAhead | None = None,
) -> HttpClient:
    """The client for ``base_url``: :class:`H11Client` where it fits, else httpx.

    ``ahead``: a request sent ahead (:func:`send_ahead`) for the lean client to
    adopt; closed unread if httpx is chosen after all."""
    trust_env = not is_loopback(base_url)
    https = urlsplit(base_url).scheme.lower() == "https"
    if lean_route(base_url, transport):
        from spark_cli.transport.sse.h11_client import H11Client  # deferred: launch -> request

        return H11Client(base_url, headers, connect_timeout=connect_timeout,
                         write_timeout=write_timeout, trust_env=trust_env, ahead=ahead)
    if ahead is not None:
        ahead.close()
    from spark_cli.transport.sse.httpx_client import HttpxClient  # deferred: launch -> request

    return HttpxClient(base_url, headers, connect_timeout=connect_timeout,
                       write_timeout=write_timeout, trust_env=trust_env, https=https,
                       transport=transport)


KINDS = {"chat_sse": (bodies.CHAT_PATH, bodies.chat_body),
         "responses_sse": (bodies.RESPONSES_PATH, bodies.responses_body)}


def send_ahead(kind: str, base_url: str, api_key: str | None, request: TurnRequest, *,
               model: str | None = None, extra_headers: Mapping[str, str] | None = None,
               connect_timeout: float, write_timeout: float) -> HttpAhead | None:
    """Send ``request`` as channel ``kind`` would, now; None where the lean client would
    not carry it (https, a proxy, an unusual URL) or h11 refuses to write it (the channel
    reports why). Never raises for the network: a failed connect is kept in the answer
    and raised by the client's first attempt as its own."""
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
