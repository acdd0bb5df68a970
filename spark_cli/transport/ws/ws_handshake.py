"""What every opening handshake of the Responses WebSocket channel carries.

Two code paths open this channel's connections: :mod:`.ws_links` (websockets'
asyncio ``connect``) and :mod:`.ws_ahead` (websockets' sans-I/O
``ClientProtocol`` on a blocking socket, before asyncio is imported). Both take
their settings from here so they open the same connection: the same headers
(the caller's, then the key as a Bearer token; ``User-Agent: spark``), no
compression, the same frame limit and the same logger, which never logs at
DEBUG (websockets logs the handshake's headers there, the key among them).
asyncio-free, websockets-free, and free of ``logging`` until :func:`handshake_logger`
is first called (a connection opened ahead needs none before its frame leaves).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from logging import Logger

EXTENSIONS_HEADER = "x-spark-engine-extensions"
"""Non-standard features the bundled engine advertises (its ``response.cancel``)."""
MAX_FRAME = 64 * 2**20
CLOSE_TIMEOUT = 2.0
USER_AGENT = "spark"
REDIRECTS = frozenset({300, 301, 302, 303, 307, 308})
"""Statuses websockets' ``connect`` follows (with a ``Location``)."""
LOGGER_NAME = "spark_cli.transport.ws.ws_links"


def handshake_logger() -> Logger:
    """The logger websockets is given for this channel's connections, set to WARNING:
    websockets logs handshake headers (the Authorization one too) at DEBUG, never here."""
    import logging  # deferred: launch -> request

    log = logging.getLogger(LOGGER_NAME)
    log.setLevel(logging.WARNING)
    return log


def handshake_headers(
    api_key: str | None, extra_headers: Mapping[str, str] | None
) -> dict[str, str]:
    """The headers the channel adds to websockets' own (Host, Upgrade, the key, ...)."""
    headers = dict(extra_headers or {})
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    return headers


def extensions_in(header: str) -> frozenset[str]:
    """The features listed in an ``x-spark-engine-extensions`` value (comma-separated)."""
    return frozenset(part.strip() for part in header.split(",") if part.strip())
