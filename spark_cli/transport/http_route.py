"""The client seam: the lean h11 client where the fast path fits, httpx otherwise, both
behind :class:`~.http_wire.HttpClient`; the window probe's blocking httpx client."""

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
    """The client for ``base_url``; ``ahead`` is closed unread if httpx is chosen."""
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
    """httpx's blocking client, no proxies from the environment."""
    lean_httpx()
    import httpx  # deferred: launch -> request

    return httpx.Client(timeout=timeout, headers=headers, trust_env=False)
