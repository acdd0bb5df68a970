"""What the Responses WebSocket channel puts on the wire: its handshake settings and its
``response.create`` frame, the same bytes whether sent ahead or by the channel. Free of
asyncio and websockets."""

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
    """The handshake logger, at WARNING: websockets logs the key's header at DEBUG."""
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
    """The ``response.create`` frame: only the new messages when they extend ``chain``."""
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
