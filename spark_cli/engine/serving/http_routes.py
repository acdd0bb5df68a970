"""The engine's ASGI app (uvicorn): the WebSocket ``/v1/responses`` and plain HTTP on one
port (docs/engine.md, *HTTP on the same port*), with its ASGI helpers (bodies, JSON, SSE, the
drop fault's abrupt close)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import Any

from spark_cli.engine.brains.base import BrainRequest, BrainTurn
from spark_cli.engine.brains.registry import BRAIN_MODELS, pace_of_model
from spark_cli.engine.core.config import EngineConfig
from spark_cli.engine.core.faults import MALFORMED, StreamDropped
from spark_cli.engine.core.generation import Generation, Outcome
from spark_cli.engine.core.output_items import Presenter
from spark_cli.engine.core.pieces import count_input
from spark_cli.engine.core.state import EngineState
from spark_cli.engine.serving.conversations import answered, brain_request, continued, turns
from spark_cli.engine.serving.handshake import (
    EXTENSIONS_HEADER,
    EXTENSIONS_VALUE,
    auth_error,
    error_body,
    ws_refusal,
)
from spark_cli.engine.serving.ws_session import WsSession
from spark_cli.engine.wire import chat
from spark_cli.engine.wire import responses as wire
from spark_cli.engine.wire.chat import COMMENT, ERROR, SKIP, ChatEvents
from spark_cli.engine.wire.response_events import Event, ResponseEvents, usage_object
from spark_cli.engine.wire.responses import WireError
from spark_cli.engine.wire.wire_errors import loads_object
from spark_cli.protocol.sse import encode_event

Scope = dict[str, Any]

_JSON = (b"content-type", b"application/json")
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


def header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def _too_large(config: EngineConfig) -> WireError:
    return WireError(413, "request_too_large",
                     f"the request body is over {config.http_max_body} bytes")


async def read_json(scope: dict[str, Any], receive: Any, config: EngineConfig) -> dict[str, Any]:
    """The request body as a JSON object (415, 413 or 400 otherwise)."""
    content_type = header(scope, b"content-type")
    if content_type is not None:
        media = content_type.partition(";")[0].strip().lower()
        if media != "application/json":
            raise WireError(
                415, "unsupported_media_type",
                f"Unsupported content type: {media!r}. This API method only accepts "
                f"'application/json' requests, but you specified the header "
                f"'Content-Type: {content_type[:100]}'. Please try again with a supported "
                "content type.")
    length = header(scope, b"content-length")
    if length is not None and length.isdigit() and int(length) > config.http_max_body:
        raise _too_large(config)
    chunks: list[bytes] = []  # not one growing buffer: its freed pages stay resident
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise WireError(400, "client_disconnected", "the client went away")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > config.http_max_body:
            raise _too_large(config)  # a new one: one made earlier would hold this frame
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



class EngineApp:
    """The ASGI application: plain HTTP and the WebSocket ``/v1/responses``."""

    def __init__(self, state: EngineState) -> None:
        self.state = state
        self.sessions: set[WsSession] = set()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        kind = scope["type"]
        if kind == "http":
            await handle(self.state, scope, receive, send)
        elif kind == "websocket":
            await self._websocket(scope, receive, send)

    async def _websocket(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        message = await receive()
        if message["type"] != "websocket.connect":
            return
        refusal = ws_refusal(scope["path"], header(scope, b"authorization"),
                             self.state.config.token)
        if refusal is not None:
            await send({"type": "websocket.http.response.start", "status": refusal.status,
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "websocket.http.response.body", "body": error_body(refusal)})
            return
        await send({"type": "websocket.accept",
                    "headers": [(EXTENSIONS_HEADER.encode(), EXTENSIONS_VALUE.encode())]})

        async def send_text(text: str) -> None:
            await send({"type": "websocket.send", "text": text})

        async def close(code: int, reason: str) -> None:
            await send({"type": "websocket.close", "code": code, "reason": reason})

        async def receive_frame() -> str | bytes | None:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                return None
            frame = message.get("text")
            return frame if frame is not None else message.get("bytes") or b""

        session = WsSession(self.state, send_text, close,
                            lambda: abort_connection(send))
        await session.serve(receive_frame, self.sessions)


async def handle(state: EngineState, scope: Scope, receive: Any, send: Any) -> None:
    path = scope["path"]
    method = scope["method"]
    try:
        if path == "/healthz":
            if method not in ("GET", "HEAD"):
                raise WireError(405, "method_not_allowed", f"{method} is not allowed on {path}",
                                headers={"allow": "GET, HEAD"})
            await send_json(send, 200, {"status": "ok"})
            return
        refusal = auth_error(header(scope, b"authorization"), state.config.token)
        if refusal is not None:
            raise refusal
        if path == "/v1/models" and method == "GET":
            created = int(time.time())
            config = state.config
            data = []
            for name in sorted(BRAIN_MODELS):
                pacing = config.pacing(pace_of_model(name))  # extension field: its pace
                data.append({"id": name, "object": "model", "created": created,
                             "owned_by": "spark", "pacing": {"tokens_per_second": pacing.tps,
                                                             "ttft_ms": pacing.ttft_ms}})
            await send_json(send, 200, {"object": "list", "data": data})
        elif path == "/v1/responses" and method == "POST":
            body = await read_json(scope, receive, state.config)
            await _responses(state, body, receive, send)
        elif path == "/v1/chat/completions" and method == "POST":
            body = await read_json(scope, receive, state.config)
            await _chat(state, body, receive, send)
        elif path in ("/v1/models", "/v1/responses", "/v1/chat/completions"):
            raise WireError(405, "method_not_allowed", f"{method} is not allowed on {path}")
        else:
            raise WireError(404, wire.NOT_FOUND, f"no route {path[:100]!r} on the bundled engine")
    except WireError as exc:
        await send_json(send, exc.status, {"error": exc.body()}, exc.headers)


async def _responses(state: EngineState, body: dict[str, Any], receive: Any, send: Any) -> None:
    request = wire.parse_create(body, state.config.max_output_tokens)
    conversation = continued(state.stored, request)
    response_id = state.new_id()
    events = ResponseEvents(response_id, request,
                            previous_response_id=request.previous_response_id)
    asked = brain_request(request, conversation, state.config.slips)
    sink = _Sink(send, stream=request.stream, named=True)
    stored: tuple[BrainTurn, ...] | None = conversation
    if not request.generate:  # warm-up: a chainable id, no output
        await sink.event(events.created())
        usage = usage_object(await count_input(state.brain_pool, asked), 0)
        await sink.event(events.empty_completion(usage))
    else:
        outcome = await _run(state, asked, events, sink, request.max_output_tokens, receive)
        stored = None if outcome is None else answered(conversation, outcome.text,
                                                       outcome.calls)
    if stored is not None and body.get("store", True):  # OpenAI stores by default
        state.store(response_id, stored)
    await sink.end()


async def _chat(state: EngineState, body: dict[str, Any], receive: Any, send: Any) -> None:
    request, include_usage = chat.parse_chat(body, state.config.max_output_tokens)
    completion_id = state.new_id("chatcmpl")
    events = ChatEvents(completion_id, request.model, include_usage=include_usage)
    asked = brain_request(request, turns(request.input), state.config.slips)
    sink = _Sink(send, stream=request.stream, named=False)
    await _run(state, asked, events, sink, request.max_output_tokens, receive)
    sink.final = events.final  # the chat.completion object (its chunks carry no response)
    await sink.end()


async def _run(
    state: EngineState, asked: BrainRequest, events: Presenter, sink: _Sink,
    limit: int | None, receive: Any,
) -> Outcome | None:
    """Generate; stop when the client disconnects. How it ended (None: no answer)."""
    generation = Generation(state, asked, events, sink.event, max_output_tokens=limit)
    task = asyncio.create_task(generation.run())
    watch = asyncio.create_task(wait_disconnect(receive))
    try:
        done, _ = await asyncio.wait({task, watch}, return_when=asyncio.FIRST_COMPLETED)
        if task not in done:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            return None
        try:
            outcome = task.result()  # a WireError here (429) precedes any event
        except StreamDropped:
            sink.dropped = True
            return None
        except (WireError, OSError):
            raise
        except Exception as exc:  # an engine bug before the generation started
            raise WireError(500, "server_error", f"the engine failed: {exc!r}"[:300],
                            kind="server_error") from exc
        return outcome if outcome.status != "failed" else None
    finally:
        watch.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watch


class _Sink:
    """Streams events as SSE, or keeps the response object for a non-streamed answer."""

    def __init__(self, send: Any, *, stream: bool, named: bool) -> None:
        self._send = send
        self.stream = stream
        self.named = named
        self.started = False
        self.dropped = False
        self.final: dict[str, Any] | None = None
        self.error: str | None = None
        """A Chat failure's message (non-streamed: answered as a 500 error)."""

    async def event(self, event: Event) -> None:
        kind, payload = event
        if kind == SKIP:
            return
        if not self.stream:
            if kind in wire.TERMINAL_EVENTS:
                self.final = json.loads(payload)["response"]
            elif kind == ERROR:
                self.error = json.loads(payload)["error"]["message"]
            return
        if not self.started:
            self.started = True
            await start_sse(self._send)
        if kind == COMMENT:
            data = f": {payload}\n\n".encode()
        elif kind == MALFORMED:
            data = encode_event(payload, wire.TEXT_DELTA if self.named else None)
        else:
            data = encode_event(payload, kind if self.named else None)
        await self._send({"type": "http.response.body", "body": data, "more_body": True})

    async def end(self) -> None:
        if self.dropped:  # the drop fault: no final chunk, no response at all
            if not abort_connection(self._send):
                raise ConnectionAbortedError("fault: drop")  # the server closes mid-body
            await asyncio.sleep(0)  # the server sees the connection lost before we return
            return
        if self.stream:
            if not self.started:
                await start_sse(self._send)
            await self._send({"type": "http.response.body", "body": b"", "more_body": False})
        elif self.final is not None:
            await send_json(self._send, 200, self.final)
        else:
            raise WireError(500, "server_error", self.error or "the response ended without an "
                            "answer", kind="server_error")
