"""A scripted model in OpenAI's wire shapes for `spark edit` tests (not a test module):
Chat Completions over SSE and the Responses WebSocket, each a real loopback server whose
first response of a turn calls tools and whose next one answers with their outputs."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from websockets.sync.server import serve


class Model:
    """The scripted model: the first request of a turn makes one call per entry of
    ``calls`` (a dict: run_command's arguments; a ``(name, arguments)`` pair: any tool);
    once the outputs are back it answers ``answer`` and keeps them (``outputs``). With
    ``usage``, response N reports ``input_tokens`` 1000 * N (of which 400 * N cached) and
    ``output_tokens`` 10 * N (``reported`` keeps them)."""

    def __init__(self, *calls: dict[str, Any] | tuple[str, dict[str, Any]],
                 answer: str = "Ran it.", usage: bool = False) -> None:
        self.calls = [c if isinstance(c, tuple) else ("run_command", c) for c in calls]
        self.requests: list[dict[str, Any]] = []
        self.outputs: list[str] = []
        self.answer = answer
        self.usage = usage
        self.reported: list[tuple[int, int, int]] = []

    def next_usage(self) -> tuple[int, int, int] | None:
        """(input, cached, output) of the response being made, when ``usage``."""
        if not self.usage:
            return None
        n = len(self.requests)
        self.reported.append((1000 * n, 400 * n, 10 * n))
        return self.reported[-1]


def _chat_chunks(model: Model, body: dict[str, Any]) -> list[dict[str, Any]]:
    outputs = [m["content"] for m in body["messages"] if m.get("role") == "tool"]
    if outputs:
        model.outputs = outputs
        return [{"delta": {"content": model.answer}, "finish_reason": None},
                {"delta": {}, "finish_reason": "stop"}]
    chunks: list[dict[str, Any]] = []
    for index, (name, arguments) in enumerate(model.calls):
        text = json.dumps(arguments)
        chunks.append({"delta": {"tool_calls": [{"index": index, "id": f"call_{index}",
                                                 "type": "function", "function": {
                                                     "name": name,
                                                     "arguments": text[:7]}}]},
                       "finish_reason": None})
        chunks.append({"delta": {"tool_calls": [{"index": index, "function": {
            "arguments": text[7:]}}]}, "finish_reason": None})
    chunks.append({"delta": {}, "finish_reason": "tool_calls"})
    return chunks


@contextmanager
def chat_model(model: Model, known: set[str] | None = None) -> Iterator[str]:
    """``known``: the model names served (another is a 404 ``model_not_found``, as OpenAI's)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self.send_error(404)

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
            if not self.path.endswith("/chat/completions"):
                self.send_error(404)
                return
            model.requests.append(body)
            if known is not None and body.get("model") not in known:
                error = json.dumps({"error": {"message": f"The model `{body.get('model')}` "
                                              "does not exist", "code": "model_not_found"}})
                self.send_response(404)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(error)))
                self.end_headers()
                self.wfile.write(error.encode())
                return
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("connection", "close")
            self.end_headers()
            chunks: list[dict[str, Any]] = [{"choices": [{"index": 0, **chunk}]}
                                            for chunk in _chat_chunks(model, body)]
            usage = model.next_usage()
            if usage is not None:
                chunks.append({"choices": [], "usage": {
                    "prompt_tokens": usage[0], "completion_tokens": usage[2],
                    "prompt_tokens_details": {"cached_tokens": usage[1]}}})
            for chunk in chunks:
                data = {"id": "c1", "object": "chat.completion.chunk", "model": "m", **chunk}
                self.wfile.write(b"data: " + json.dumps(data).encode() + b"\n\n")
            self.wfile.write(b"data: [DONE]\n\n")
            self.close_connection = True

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()


def _responses_events(model: Model, create: dict[str, Any], n: int) -> Iterator[dict[str, Any]]:
    rid = f"resp_{n}"
    yield {"type": "response.created", "response": {"id": rid, "status": "in_progress"}}
    outputs = [i["output"] for i in create.get("input", [])
               if isinstance(i, dict) and i.get("type") == "function_call_output"]
    if outputs:
        model.outputs = outputs
        item = {"type": "message", "id": "msg_1", "role": "assistant", "content": []}
        yield {"type": "response.output_item.added", "output_index": 0, "item": item}
        yield {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0,
               "content_index": 0, "delta": model.answer}
        yield {"type": "response.output_item.done", "output_index": 0, "item": item}
    else:
        for index, (name, arguments) in enumerate(model.calls):
            item = {"type": "function_call", "id": f"fc_{index}", "call_id": f"call_{index}",
                    "name": name, "arguments": ""}
            yield {"type": "response.output_item.added", "output_index": index, "item": item}
            yield {"type": "response.function_call_arguments.delta", "item_id": f"fc_{index}",
                   "output_index": index, "delta": json.dumps(arguments)}
            yield {"type": "response.function_call_arguments.done", "item_id": f"fc_{index}",
                   "output_index": index, "arguments": json.dumps(arguments)}
            yield {"type": "response.output_item.done", "output_index": index,
                   "item": {**item, "arguments": json.dumps(arguments)}}
    usage = model.next_usage()
    yield {"type": "response.completed", "response": {
        "id": rid, "status": "completed",
        "usage": {"output_tokens": 5} if usage is None else {
            "input_tokens": usage[0], "input_tokens_details": {"cached_tokens": usage[1]},
            "output_tokens": usage[2]}}}


@contextmanager
def responses_model(model: Model) -> Iterator[str]:
    def handler(ws: Any) -> None:
        for raw in ws:
            create = json.loads(raw)
            if create.get("type") != "response.create":
                continue
            model.requests.append(create)
            for number, event in enumerate(_responses_events(model, create,
                                                             len(model.requests))):
                ws.send(json.dumps({**event, "sequence_number": number}))

    with serve(handler, "127.0.0.1", 0, compression=None) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        yield f"ws://127.0.0.1:{server.socket.getsockname()[1]}/v1"
