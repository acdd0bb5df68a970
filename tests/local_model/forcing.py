"""A loopback proxy that makes a small model call a tool: ``tool_choice`` set to ``"required"``.

SmolLM2-135M rarely chooses a tool on its own. llama-server turns ``tool_choice: "required"``
into a grammar, so the answer is a real tool call in the chat template's own format, parsed by
the server into OpenAI ``tool_calls``. spark sends ``"auto"``; this proxy rewrites it on a
turn's first request (tools declared, no tool output yet) and passes everything else (the
follow-up with the outputs, ``/props``, the tokenizer) through unchanged, streamed as it
arrives.
"""

from __future__ import annotations

import http.client
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}


def force_tools(body: bytes) -> bytes | None:
    """The request with ``tool_choice: "required"``, or None to send it as it is."""
    try:
        request = json.loads(body)
    except ValueError:
        return None
    if not isinstance(request, dict) or not request.get("tools"):
        return None
    if any(isinstance(m, dict) and m.get("role") == "tool" for m in request.get("messages", [])):
        return None
    request["tool_choice"] = "required"
    return json.dumps(request).encode()


class ToolChoiceProxy:
    """``base_url`` in front of the server at ``upstream`` (``http://host:port``)."""

    def __init__(self, upstream: str) -> None:
        parts = urlsplit(upstream)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.forced = 0
        """How many requests were sent with ``tool_choice`` required."""
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(timeout=10)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._relay(None)

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path.endswith("/chat/completions"):
                    forced = force_tools(body)
                    if forced is not None:
                        proxy.forced += 1
                        body = forced
                self._relay(body)

            def _relay(self, body: bytes | None) -> None:
                upstream = http.client.HTTPConnection(*proxy.upstream, timeout=900)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
                upstream.request(self.command, self.path, body=body, headers=headers)
                answer = upstream.getresponse()
                self.send_response(answer.status)
                for key, value in answer.getheaders():
                    if key.lower() not in _HOP:
                        self.send_header(key, value)
                self.send_header("Connection", "close")
                self.end_headers()
                while chunk := answer.read1(65536):  # SSE as it arrives (HTTP/1.0: until close)
                    self.wfile.write(chunk)
                    self.wfile.flush()
                upstream.close()

        return Handler
