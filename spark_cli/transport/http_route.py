"""The client seam: which of spark's two HTTP implementations carries a request.

A channel's POSTs: the lean h11 client (:func:`spark_cli.transport.fast.lean_client`,
adopting a request sent ahead) where the fast path is on and fits the URL; httpx otherwise
(the plain path: proxies, injected test transports, unusual URLs, ``SPARK_PLAIN``), both
behind :class:`~.http_wire.HttpClient`. The window probe's blocking asks (before any event
loop exists): httpx's blocking client, from :func:`blocking_client`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from spark_cli.transport.fast import lean_client, lean_httpx
from spark_cli.transport.proxies import is_loopback

if TYPE_CHECKING:
    import httpx

    from spark_cli.transport.fast.http_ahead import HttpAhead
    from spark_cli.transport.http_wire import HttpClient


def open_client(base_url: str, headers: Mapping[str, str], *, connect_timeout: float,
                write_timeout: float, transport: Any = None,
                ahead: HttpAhead | None = None) -> HttpClient:
    """The client for ``base_url``; ``ahead`` (a request sent ahead) is closed unread if
    httpx is chosen."""
    lean = lean_client(base_url, headers, connect_timeout=connect_timeout,
                       write_timeout=write_timeout, transport=transport, ahead=ahead)
    if lean is not None:
        return lean
    if ahead is not None:
        ahead.close()
    lean_httpx()
    from spark_cli.transport.httpx_client import HttpxClient  # deferred: launch -> request

    return HttpxClient(base_url, headers, connect_timeout=connect_timeout,
                       write_timeout=write_timeout, trust_env=not is_loopback(base_url),
                       https=urlsplit(base_url).scheme.lower() == "https", transport=transport)


def blocking_client(headers: Mapping[str, str], timeout: float) -> httpx.Client:
    """httpx's blocking client with ``headers``, ``timeout`` for each ask, no proxies from
    the environment (the probe asks only where none applies)."""
    lean_httpx()
    import httpx  # deferred: launch -> request

    return httpx.Client(timeout=timeout, headers=headers, trust_env=False)
