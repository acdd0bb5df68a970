"""Asking a server: the first endpoint that says wins, a refused port ends it quietly."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from spark_cli.transport.window.probe import count, discover, may_ask, server_root


def _serve(routes: dict[str, Any]) -> tuple[ThreadingHTTPServer, list[str]]:
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = json.loads(self.rfile.read(length)) if length else None
            asked.append(f"{self.command} {self.path}")
            route = routes.get(self.path)
            answer = route(body) if callable(route) else route
            if answer is None:
                self.send_response(404)
                self.send_header("content-length", "0")
                self.end_headers()
                return
            data = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _answer

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, asked


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[ThreadingHTTPServer] = []

    def start(routes: dict[str, Any]) -> tuple[str, list[str]]:
        server, asked = _serve(routes)
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/v1", asked

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_llama_server_props_and_tokenize(serve: Any) -> None:
    base, asked = serve({"/props": {"default_generation_settings": {"n_ctx": 8192}},
                         "/tokenize": lambda body: {"tokens": list(range(len(body["content"])))}})
    found = discover(base, "m", None)
    assert found is not None
    assert (found.window, found.where, found.tokenizer) == (8192, "llama.cpp /props n_ctx",
                                                            "llama.cpp")
    assert asked[0] == "GET /props"
    assert count(base, "llama.cpp", "m", None, "abc") == 3


def test_llama_cpp_python_says_no_window_but_counts(serve: Any) -> None:
    base, _ = serve({"/v1/models": {"data": [{"id": "a.gguf", "object": "model"}]},
                     "/extras/tokenize/count": lambda body: {"count": 2}})
    found = discover(base, "smol", None)
    assert found is not None
    assert (found.window, found.tokenizer, found.served) == (None, "llama-cpp-python", "a.gguf")


def test_vllm_model_list(serve: Any) -> None:
    base, _ = serve({"/v1/models": {"data": [{"id": "q", "max_model_len": 32768}]},
                     "/tokenize": lambda body: {"count": 5, "max_model_len": 32768,
                                                "tokens": [1, 2, 3, 4, 5]}
                     if "prompt" in body else None})  # vLLM refuses llama.cpp's form
    found = discover(base, "q", None)
    assert found is not None
    assert (found.window, found.tokenizer) == (32768, "vllm")


def test_ollama_show_and_ps(serve: Any) -> None:
    show = {"parameters": "num_ctx 8192", "model_info": {"llama.context_length": 131072}}
    base, asked = serve({"/api/show": lambda body: show
                         if body == {"model": "qwen2.5-coder:7b"} else None})
    found = discover(base, "qwen2.5-coder:7b", None)
    assert found is not None
    assert (found.window, found.loaded, found.where) == (131072, 8192,
                                                         "Ollama /api/show context_length")
    assert "POST /api/show" in asked and "GET /api/ps" in asked
    base, _ = serve({"/api/show": show, "/api/ps": {"models": [
        {"name": "qwen2.5-coder:7b", "model": "qwen2.5-coder:7b", "context_length": 4096}]}})
    found = discover(base, "qwen2.5-coder:7b", None)
    assert found is not None and found.loaded == 4096  # what runs now


def test_nothing_listening_is_none_at_once(unused_tcp_port: int) -> None:
    assert discover(f"http://127.0.0.1:{unused_tcp_port}/v1", "m", None) is None


def test_remote_hosts_behind_a_proxy_are_not_asked() -> None:
    assert may_ask("http://127.0.0.1:8080/v1", {"HTTPS_PROXY": "http://proxy:3128"})
    assert not may_ask("https://api.example.test/v1", {"HTTPS_PROXY": "http://proxy:3128"})
    assert may_ask("https://api.example.test/v1", {})
    assert not may_ask("ws://127.0.0.1/v1", {})
    assert server_root("http://h:8080/v1/") == "http://h:8080"


def test_a_server_that_does_not_answer_ends_the_asking() -> None:
    import socket

    with socket.socket() as listener:  # listens, never accepts: connects, never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        assert discover(f"http://127.0.0.1:{port}/v1", "m", None, timeout=0.2) is None
