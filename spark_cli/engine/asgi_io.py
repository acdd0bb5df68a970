"""Small ASGI helpers for the engine's HTTP side: JSON replies, errors, auth, bodies, SSE.

uvicorn does the HTTP parsing; these only build ASGI messages -- except
:func:`abort_connection`, which reaches the transport under uvicorn's ``send``
to drop a connection abruptly (the drop fault).
"""

from __future__ import annotations

import hmac
import json
from typing import Any

from spark_cli.engine.config import EngineConfig
from spark_cli.protocol import responses as wire
from spark_cli.protocol.responses import WireError

_JSON = (b"content-type", b"application/json")
_SSE_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),
]


def _headers(extra: dict[str, str]) -> list[tuple[bytes, bytes]]:
    return [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in extra.items()]


async def send_json(
    send: Any, status: int, body: Any, headers: dict[str, str] | None = None
) -> None:
    data = json.dumps(body).encode()
    await send({
        "type": "http.response.start", "status": status,
        "headers": [_JSON, (b"content-length", str(len(data)).encode()),
                    *_headers(headers or {})],
    })
    await send({"type": "http.response.body", "body": data, "more_body": False})


async def send_error(send: Any, error: WireError) -> None:
    """OpenAI's error body ``{"error": {...}}`` with the error's headers (429s)."""
    await send_json(send, error.status, {"error": error.body()}, error.headers)


def bearer(headers: list[tuple[bytes, bytes]]) -> str | None:
    for name, value in headers:
        if name == b"authorization":
            text = value.decode("latin-1")
            scheme, _, token = text.partition(" ")
            return token.strip() if scheme.lower() == "bearer" else None
    return None


def auth_error(scope: dict[str, Any], token: str | None) -> WireError | None:
    """401 when a token is configured and the request does not carry it."""
    if token is None:
        return None
    given = bearer(scope.get("headers", []))
    if given is not None and hmac.compare_digest(given.encode(), token.encode()):
        return None
    what = "missing" if given is None else "incorrect"
    return WireError(401, wire.INVALID_API_KEY,
                     f"{what} API key: send 'Authorization: Bearer <token>' with the engine's "
                     "--token", kind="invalid_request_error")


def check_auth(scope: dict[str, Any], token: str | None) -> None:
    error = auth_error(scope, token)
    if error is not None:
        raise error


async def read_json(receive: Any, config: EngineConfig) -> dict[str, Any]:
    """The request body as a JSON object (413 when too big, 400 when not JSON)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise WireError(400, "client_disconnected", "the client went away")
        body = message.get("body", b"")
        size += len(body)
        if size > config.http_max_body:
            raise WireError(413, "request_too_large",
                            f"the request body is over {config.http_max_body} bytes")
        chunks.append(body)
        if not message.get("more_body", False):
            break
    try:
        obj = json.loads(b"".join(chunks))
    except (ValueError, UnicodeDecodeError) as exc:
        raise WireError(400, wire.INVALID_JSON, f"the body is not valid JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise WireError(400, wire.INVALID_JSON, "the body must be a JSON object")
    return obj


async def wait_disconnect(receive: Any) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def start_sse(send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": _SSE_HEADERS})


def abort_connection(send: Any) -> bool:
    """Abort the TCP connection under an ASGI ``send`` (uvicorn's protocol objects keep
    it as ``transport``): the peer sees a reset, no close frame or final chunk. False
    when the server does not expose it."""
    transport = getattr(getattr(send, "__self__", None), "transport", None)
    abort = getattr(transport, "abort", None)
    if not callable(abort):
        return False
    abort()
    return True
