"""A scripted Chat Completions server on loopback for `spark edit` tests: every POST gets
the same answer, streamed as SSE in a few chunks (or held until released, to test what a
signal does to a run in flight)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ChatScript:
    """What the server answers; ``hold`` keeps the stream open after the first chunk
    until ``release`` is set."""

    def __init__(self, answer: str = "", finish: str = "stop") -> None:
        self.answer = answer
        self.finish = finish
        self.hold = False
        self.started = threading.Event()
        self.release = threading.Event()
        self.requests: list[dict[str, object]] = []

    def chunks(self) -> list[bytes]:
        pieces = [self.answer[i:i + 40] for i in range(0, len(self.answer), 40)] or [""]
        out = [_chunk({"content": piece}, None) for piece in pieces]
        out.append(_chunk({}, self.finish))
        out.append(b"data: [DONE]\n\n")
        return out


def _chunk(delta: dict[str, str], finish: str | None) -> bytes:
    body = {"id": "c1", "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def _handler(script: ChatScript) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            script.requests.append(json.loads(self.rfile.read(length) or b"{}"))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("connection", "close")
            self.end_headers()
            chunks = script.chunks()
            self.wfile.write(chunks[0])
            self.wfile.flush()
            script.started.set()
            if script.hold:
                script.release.wait(60)
            for chunk in chunks[1:]:
                self.wfile.write(chunk)
            self.wfile.flush()
            self.close_connection = True

        def log_message(self, *args: object) -> None:
            pass

    return Handler


@contextmanager
def chat_server(script: ChatScript) -> Iterator[str]:
    """Serve ``script``; yields the base URL (``http://127.0.0.1:PORT/v1``)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(script))
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        script.release.set()
        httpd.shutdown()
        httpd.server_close()
