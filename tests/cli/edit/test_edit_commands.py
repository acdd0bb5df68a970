"""`spark edit` with run_command, end to end: a scripted model in OpenAI's wire shapes (Chat
Completions SSE, and the Responses WebSocket) asks for commands; spark runs them in real
processes under the policy, in the real sandbox, and the model gets their output."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.server import serve

from spark_cli.checks.sandbox import Sandbox, find_sandbox

KEY = "sk-spark-test-0123456789abcdef"
TESTS = "def test_one():\n    assert 1 + 1 == 2\n"


def _needs_sandbox() -> None:
    if not isinstance(find_sandbox(), Sandbox):
        if os.environ.get("CI"):
            pytest.fail("no working bubblewrap in CI: .ci/run installs it")
        pytest.skip(f"no sandbox here: {find_sandbox()}")


class Model:
    """The scripted model: the first request of a turn calls run_command with each of
    ``commands``; once the outputs are back it answers with them (``outputs``)."""

    def __init__(self, *commands: dict[str, Any]) -> None:
        self.commands = commands
        self.requests: list[dict[str, Any]] = []
        self.outputs: list[str] = []


def _chat_chunks(model: Model, body: dict[str, Any]) -> list[dict[str, Any]]:
    outputs = [m["content"] for m in body["messages"] if m.get("role") == "tool"]
    if outputs:
        model.outputs = outputs
        return [{"delta": {"content": "Ran it."}, "finish_reason": None},
                {"delta": {}, "finish_reason": "stop"}]
    chunks: list[dict[str, Any]] = []
    for index, arguments in enumerate(model.commands):
        text = json.dumps(arguments)
        chunks.append({"delta": {"tool_calls": [{"index": index, "id": f"call_{index}",
                                                 "type": "function", "function": {
                                                     "name": "run_command",
                                                     "arguments": text[:7]}}]},
                       "finish_reason": None})
        chunks.append({"delta": {"tool_calls": [{"index": index, "function": {
            "arguments": text[7:]}}]}, "finish_reason": None})
    chunks.append({"delta": {}, "finish_reason": "tool_calls"})
    return chunks


@contextmanager
def chat_model(model: Model) -> Iterator[str]:
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
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("connection", "close")
            self.end_headers()
            for chunk in _chat_chunks(model, body):
                data = {"id": "c1", "object": "chat.completion.chunk", "model": "m",
                        "choices": [{"index": 0, **chunk}]}
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
               "content_index": 0, "delta": "Ran it."}
        yield {"type": "response.output_item.done", "output_index": 0, "item": item}
    else:
        for index, arguments in enumerate(model.commands):
            item = {"type": "function_call", "id": f"fc_{index}", "call_id": f"call_{index}",
                    "name": "run_command", "arguments": ""}
            yield {"type": "response.output_item.added", "output_index": index, "item": item}
            yield {"type": "response.function_call_arguments.delta", "item_id": f"fc_{index}",
                   "output_index": index, "delta": json.dumps(arguments)}
            yield {"type": "response.function_call_arguments.done", "item_id": f"fc_{index}",
                   "output_index": index, "arguments": json.dumps(arguments)}
            yield {"type": "response.output_item.done", "output_index": index,
                   "item": {**item, "arguments": json.dumps(arguments)}}
    yield {"type": "response.completed", "response": {"id": rid, "status": "completed",
                                                      "usage": {"output_tokens": 5}}}


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


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    (root / "app.py").write_text("def one():\n    return 1\n")
    (root / "tests" / "test_app.py").write_text(TESTS)
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    return root


def _edit(repo: Path, base_url: str, *flags: str, provider: str = "openai-compatible",
          timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPARK_")}
    env.update(SPARK_CONFIG_DIR=str(repo.parent / "user"), SPARK_API_KEY=KEY,
               PYTHONPATH=str(Path(__file__).resolve().parents[3]))
    return subprocess.run(
        [sys.executable, "-m", "spark_cli", "edit", "app.py", "-m", "run it", "--root",
         str(repo), "--provider", provider, "--base-url", base_url, "--model", "m", *flags],
        cwd=repo, env=env, capture_output=True, text=True, timeout=timeout,
        stdin=subprocess.DEVNULL)


def test_the_default_runs_nothing_and_tells_the_model_why(repo: Path) -> None:
    model = Model({"command": "touch made"})
    with chat_model(model) as url:
        done = _edit(repo, url)
    assert not (repo / "made").exists()
    assert "run_command" not in [t["function"]["name"] for t in model.requests[0]["tools"]]
    assert model.outputs == ["running commands is off (--commands)"]
    assert "touch made → running commands is off (--commands)" in done.stderr


def test_sandboxed_tests_run_for_real_over_chat_sse(repo: Path) -> None:
    _needs_sandbox()
    model = Model({"command": f"{sys.executable} -m pytest -q -p no:cacheprovider"})
    with chat_model(model) as url:
        done = _edit(repo, url, "--commands", "sandbox", "--json")
    [output] = model.outputs
    assert output.startswith("exit 0 · ") and "1 passed" in output, done.stderr
    kinds = [json.loads(line)["type"] for line in done.stdout.splitlines()]
    assert kinds.count("command_started") == 1 and "command_output" in kinds
    finished = [json.loads(line) for line in done.stdout.splitlines()
                if json.loads(line)["type"] == "command_finished"]
    assert finished[0]["exit_code"] == 0 and finished[0]["ended"] == "exit"


def test_sandboxed_tests_run_for_real_over_the_responses_websocket(repo: Path) -> None:
    _needs_sandbox()
    model = Model({"command": f"{sys.executable} -m pytest -q -p no:cacheprovider"})
    with responses_model(model) as url:
        done = _edit(repo, url, "--commands", "sandbox", provider="openai")
    assert any(t["name"] == "run_command" for t in model.requests[0]["tools"])
    [output] = model.outputs
    assert output.startswith("exit 0 · ") and "1 passed" in output, done.stderr
    assert "1 passed" in done.stderr  # the output on stderr as it ran


def test_escapes_fail_in_the_sandbox_and_nothing_is_left_behind(repo: Path,
                                                                 tmp_path: Path) -> None:
    _needs_sandbox()
    outside = tmp_path / "outside.txt"
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    marker = "31.4159"
    connect = (f"{sys.executable} -c \"import socket; socket.create_connection("
               f"('127.0.0.1', {port}), timeout=2); print('connected')\"")
    home = Path.home() / f"spark-escape-{os.getpid()}"
    model = Model({"command": f"echo escaped > {outside}"},
                  {"command": f"echo escaped > {home}"},
                  {"command": connect},
                  {"command": "echo key=$SPARK_API_KEY; env | grep -c API_KEY; echo " + KEY},
                  {"command": f"sleep {marker}", "timeout_s": 1})
    try:
        with chat_model(model) as url:
            done = _edit(repo, url, "--commands", "sandbox")
    finally:
        listener.close()
    to_tmp, to_home, reach, key, slow = model.outputs
    assert not outside.exists(), to_tmp  # /tmp in the sandbox is its own, private
    assert not home.exists() and "Read-only file system" in to_home, to_home
    assert "connected" not in reach and not reach.startswith("exit 0"), reach
    assert KEY not in key and "key=\n0\n" in key and "[secret]" in key
    assert KEY not in done.stderr and KEY not in done.stdout
    assert slow.startswith("killed: timeout after 1 s"), slow
    left = subprocess.run(["pgrep", "-f", f"sleep {marker}"], capture_output=True, text=True)
    assert left.stdout == "", "a command outlived its turn"
