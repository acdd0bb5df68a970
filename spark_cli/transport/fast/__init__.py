"""The start-up fast path and its one off switch, ``SPARK_PLAIN`` (``1``: every trick off;
a comma list of :data:`TRICKS`: only those). One entry point, :func:`send_ahead`; one adopter
per wire: :func:`lean_client` (HTTP) and :func:`.ws_adopt.adopt`. Each trick stays while the
ledger (docs/benchmarks.md ``## Ledger``) keeps it. Nothing here imports asyncio."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from spark_cli.protocol.channel import TurnRequest
    from spark_cli.transport.fast.h11_client import H11Client
    from spark_cli.transport.fast.http_ahead import HttpAhead
    from spark_cli.transport.fast.ws_ahead import WsAhead

SentAhead: TypeAlias = "HttpAhead | WsAhead"
"""A request sent ahead (:func:`send_ahead`), for its wire's adopter to take or to close."""

TRICKS = ("head_start", "h11", "httpx_lean", "edit_args")


def on(trick: str) -> bool:
    """Whether ``trick`` is in use: ``SPARK_PLAIN`` unset/``0``: all; trick names: all but those."""
    value = os.environ.get("SPARK_PLAIN", "").strip()
    if value in ("", "0"):
        return True
    named = {name.strip() for name in value.split(",")}
    return named <= set(TRICKS) and trick not in named


def lean_httpx() -> None:
    """Before httpx's first import: :func:`.httpx_lean.prepare`, where the trick is on."""
    if on("httpx_lean"):
        from spark_cli.transport.fast import httpx_lean  # deferred: launch -> request

        httpx_lean.prepare()


def send_ahead(kind: str, base_url: str, api_key: str | None, request: TurnRequest, *,
               connect_timeout: float, write_timeout: float,
               extra_headers: Mapping[str, str] | None = None) -> SentAhead | None:
    """Send a one-shot's ``request`` now, blocking, before asyncio is imported; None where not sent.

    Never raises for the network: a failed connect is raised by the channel's first attempt."""
    if not on("head_start"):
        return None
    if kind in ("chat_sse", "responses_sse") and on("h11"):  # h11 adopts it: none without
        from spark_cli.transport.fast.http_ahead import send_http  # deferred: launch -> request

        return send_http(kind, base_url, api_key, request, extra_headers=extra_headers,
                         connect_timeout=connect_timeout, write_timeout=write_timeout)
    if kind == "responses_ws":
        # deferred: launch -> request
        from spark_cli.transport.fast.ws_ahead import send_ws
        from spark_cli.transport.ws_wire import websocket_url

        try:
            url = websocket_url(base_url)
        except ValueError:  # the channel reports it
            return None
        return send_ws(url, api_key, request, extra_headers=extra_headers,
                       connect_timeout=connect_timeout)
    return None


def lean_client(base_url: str, headers: Mapping[str, str], *, connect_timeout: float,
                write_timeout: float, transport: Any = None,
                ahead: HttpAhead | None = None) -> H11Client | None:
    """The lean h11 client for ``base_url``, taking ``ahead``; None where httpx carries it."""
    if not on("h11"):
        return None
    # deferred: launch -> request
    from spark_cli.transport.fast.http_ahead import lean_route
    from spark_cli.transport.proxies import is_loopback

    if not lean_route(base_url, transport):
        return None
    from spark_cli.transport.fast.h11_client import H11Client  # deferred: launch -> request

    return H11Client(base_url, headers, connect_timeout=connect_timeout,
                     write_timeout=write_timeout, trust_env=not is_loopback(base_url),
                     ahead=ahead)
