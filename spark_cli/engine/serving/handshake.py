"""Who may talk to the engine: the bearer token and the WebSocket handshake's refusals and
extensions header, shared by both servers so they refuse alike."""

from __future__ import annotations

import hmac
import json

from spark_cli.engine.wire import responses as wire
from spark_cli.engine.wire.responses import WireError

WS_PATH = "/v1/responses"
EXTENSIONS_HEADER = "x-spark-engine-extensions"
EXTENSIONS_VALUE = ", ".join(wire.EXTENSIONS)


def auth_error(authorization: str | None, token: str | None) -> WireError | None:
    """401 when a token is configured and ``authorization`` does not carry it."""
    if token is None:
        return None
    scheme, _, rest = (authorization or "").partition(" ")
    given = rest.strip() if scheme.lower() == "bearer" else None  # Bearer <token>
    if given is not None and hmac.compare_digest(given.encode(), token.encode()):
        return None
    what = "missing" if given is None else "incorrect"
    return WireError(401, wire.INVALID_API_KEY,
                     f"{what} API key: send 'Authorization: Bearer <token>' with the engine's "
                     "--token", kind="invalid_request_error")


def ws_refusal(path: str, authorization: str | None, token: str | None) -> WireError | None:
    """Why a WebSocket handshake for ``path`` is refused (404, then 401), or None: accept."""
    if path != WS_PATH:
        return WireError(404, wire.NOT_FOUND, f"no WebSocket at {path[:100]!r}")
    return auth_error(authorization, token)


def error_body(error: WireError) -> bytes:
    """OpenAI's error body ``{"error": {...}}`` as JSON bytes."""
    return json.dumps({"error": error.body()}).encode()
