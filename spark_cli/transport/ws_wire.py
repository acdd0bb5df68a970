"""What the Responses WebSocket channel puts on the wire: its handshake and its frames.

Every connection is opened with the same settings (:mod:`.ws.ws_links` through websockets'
``connect``, or :mod:`.fast.ws_ahead` before asyncio is imported): the caller's headers and
the key (``bodies.key_headers``), ``User-Agent: spark``, no compression, one frame limit
and a logger that never logs at DEBUG (websockets logs the handshake's headers there,
the key among them). Both send the same ``response.create`` frame (:func:`create_payload`),
so a request sent ahead and one sent by the channel are the same bytes by construction;
:func:`websocket_url` derives the URL from a base URL. Free of asyncio,
of websockets, and of ``logging`` until :func:`handshake_logger` is first called.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from spark_cli.protocol.channel import ConversationItem, TurnRequest
from spark_cli.protocol.secrets import mask_url
from spark_cli.record import record
from spark_cli.transport.bodies import responses_item, responses_options

if TYPE_CHECKING:
    from logging import Logger

EXTENSIONS_HEADER = "x-spark-engine-extensions"
"""Non-standard features the bundled engine advertises (its ``response.cancel``)."""
MAX_FRAME = 64 * 2**20
CLOSE_TIMEOUT = 2.0
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


def extensions_in(header: str) -> frozenset[str]:
    """The features listed in an ``x-spark-engine-extensions`` value (comma-separated)."""
    return frozenset(part.strip() for part in header.split(",") if part.strip())


@record
class Chain:
    """The response a connection holds (``store: false``: only its latest one)."""

    response_id: str
    covered: tuple[ConversationItem, ...]
    """The conversation the response saw, its own answer included."""


def create_payload(request: TurnRequest, chain: Chain | None, *, generate: bool = True) -> str:
    """The ``response.create`` frame for ``request`` on a connection holding ``chain``: a
    turn whose messages extend what ``chain`` covered sends only the new ones with
    ``previous_response_id``; anything else sends the whole context."""
    messages = request.messages
    body: dict[str, object] = {"type": "response.create", "model": request.model}
    if chain is not None:
        covered = len(chain.covered)
        if len(messages) > covered and messages[:covered] == chain.covered:
            body["previous_response_id"] = chain.response_id
            messages = messages[covered:]
    body["input"] = [responses_item(m) for m in messages]
    body.update(responses_options(request))
    body["store"] = False
    if not generate:
        body["generate"] = False
    return json.dumps(body)


_WS_SCHEMES = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}


def websocket_url(base_url: str) -> str:
    """``http(s)://host/v1`` → ``ws(s)://host/v1/responses`` (an explicit ws URL is kept)."""
    parts = urlsplit(base_url.strip())
    scheme = _WS_SCHEMES.get(parts.scheme.lower())
    if scheme is None or not parts.netloc:
        raise ValueError(f"not an http(s) or ws(s) URL: {mask_url(base_url)!r}")
    path = parts.path.rstrip("/")
    if not path.endswith("/responses"):
        path += "/responses"
    return urlunsplit((scheme, parts.netloc, path, parts.query, ""))
