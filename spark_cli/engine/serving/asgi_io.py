"""Small ASGI helpers for the engine's HTTP side: JSON replies, errors, headers, bodies, SSE,
and dropping a connection abruptly (the drop fault)."""

from __future__ import annotations

import json
from typing import Any

from spark_cli.engine.core.config import EngineConfig
from spark_cli.engine.wire.responses import WireError
from spark_cli.engine.wire.wire_errors import loads_object

_JSON = (b"content-type", b"application/json")
UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
_SSE_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),
]


async def send_json(
    send: Any, status: int, body: Any, headers: dict[str, str] | None = None
) -> None:
    data = json.dumps(body).encode()
    await send({
        "type": "http.response.start", "status": status,
        "headers": [_JSON, (b"content-length", str(len(data)).encode()),
                    *((k.lower().encode("latin-1"), v.encode("latin-1"))
                      for k, v in (headers or {}).items())],
    })
    await send({"type": "http.response.body", "body": data, "more_body": False})


async def send_error(send: Any, error: WireError) -> None:
    """OpenAI's error body ``{"error": {...}}`` with the error's headers (429s)."""
    await send_json(send, error.status, {"error": error.body()}, error.headers)


def header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def check_body_headers(scope: dict[str, Any], config: EngineConfig) -> None:
    """Before reading a body: 415 unless JSON (or untyped), 413 when too long."""
    content_type = header(scope, b"content-type")
    if content_type is not None:
        media = content_type.partition(";")[0].strip().lower()
        if media != "application/json":
            raise WireError(
                415, UNSUPPORTED_MEDIA_TYPE,
                f"Unsupported content type: {media!r}. This API method only accepts "
                f"'application/json' requests, but you specified the header "
                f"'Content-Type: {content_type[:100]}'. Please try again with a supported "
                "content type.", kind="invalid_request_error")
    length = header(scope, b"content-length")
    if length is not None and length.isdigit() and int(length) > config.http_max_body:
        raise _too_large(config)


def _too_large(config: EngineConfig) -> WireError:
    return WireError(413, "request_too_large",
                     f"the request body is over {config.http_max_body} bytes")


async def read_json(scope: dict[str, Any], receive: Any, config: EngineConfig) -> dict[str, Any]:
    """The request body as a JSON object (415, 413 or 400 otherwise)."""
    check_body_headers(scope, config)
    chunks: list[bytes] = []  # not one growing buffer: its freed pages stay resident
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise WireError(400, "client_disconnected", "the client went away")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > config.http_max_body:
            raise _too_large(config)
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return loads_object(chunks[0] if len(chunks) == 1 else b"".join(chunks), "the body")


async def wait_disconnect(receive: Any) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def start_sse(send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": _SSE_HEADERS})


def abort_connection(send: Any) -> bool:
    """Abort the TCP connection under uvicorn's ``send``; False when it is not exposed."""
    transport = getattr(getattr(send, "__self__", None), "transport", None)
    abort = getattr(transport, "abort", None)
    if not callable(abort):
        return False
    abort()
    return True
