"""A loopback proxy that makes a small model call a tool, through llama-server's own grammar.

SmolLM2-135M rarely chooses a tool on its own, and ``tool_choice: "required"`` alone does not
make it: llama-server's grammar lets prose come first, and the 96 tokens run out before any
call. So on a turn's first request (tools declared, no tool output yet) the proxy sets
``tool_choice: "required"``, ``temperature: 0`` (the same call each run), a stop at the end of
the first call (this build's grammar allows more calls even with ``parallel_tool_calls: false``,
and a greedy 135M model repeats them to the cap), and starts the answer with the template's
``<tool_call>`` marker (an assistant message llama-server continues): the grammar then holds
the model to a call, which the server parses from the model's text into OpenAI
``tool_calls``. Everything else (the follow-up with the outputs, ``/props``, the tokenizer)
passes through unchanged, streamed as it arrives.
"""

from __future__ import annotations

import http.client
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

CALL_MARKER, CALL_END = "<tool_call>\n", "</tool_call>"
"""Where a call starts and ends in the Qwen2.5 chat template's format (``llama.TOOL_TEMPLATE``)."""
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
    request.update(tool_choice="required", parallel_tool_calls=False, temperature=0,
                   stop=[CALL_END])
    request["messages"] = [*request.get("messages", []), {"role": "assistant",
                                                           "content": CALL_MARKER}]
    return json.dumps(request).encode()


class ToolChoiceProxy:
    """``base_url`` in front of the server at ``upstream`` (``http://host:port``)."""

    def __init__(self, upstream: str) -> None:
        parts = urlsplit(upstream)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.forced = 0
        """How many requests were sent with ``tool_choice`` required."""
        self.answered: list[bytes] = []
        """What the server answered to each of them (for a failing test's message)."""
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
                self._relay(None, keep=False)

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                forced = force_tools(body) if self.path.endswith("/chat/completions") else None
                if forced is not None:
                    proxy.forced += 1
                self._relay(forced or body, keep=forced is not None)

            def _relay(self, body: bytes | None, *, keep: bool) -> None:
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
                kept = bytearray()
                while chunk := answer.read1(65536):  # SSE as it arrives (HTTP/1.0: until close)
                    self.wfile.write(chunk)
                    self.wfile.flush()
                    kept += chunk if keep else b""
                upstream.close()
                if keep:
                    proxy.answered.append(bytes(kept))

        return Handler
