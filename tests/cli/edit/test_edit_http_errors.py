"""`spark edit` against a scripted loopback server that answers every request with one
HTTP error: the message names the URL tried and the fix (issue 20 item 4)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spark_cli.cli.main import app

KEY = "sk-test-0123456789abcdefWXYZ"


class _Script:
    status = 404
    body = b'{"error": {"message": "Not Found"}}'
    seen: list[str]
    refused = -1
    """POSTs answered ``status`` before the rest get a chat answer (-1: all of them)."""
    posted: list[bytes]


def _handler(script: _Script) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            script.seen.append(f"{self.command} {self.path}")
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            if self.command == "POST":
                script.posted.append(body)
                if 0 <= script.refused < len(script.posted):
                    self._chat()
                    return
            self.send_response(script.status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(script.body)))
            self.end_headers()
            self.wfile.write(script.body)

        def _chat(self) -> None:
            chunk = {"choices": [{"index": 0, "delta": {"content": "It adds one."},
                                  "finish_reason": "stop"}]}
            data = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _answer

        def log_message(self, *args: object) -> None:
            pass

    return Handler


@pytest.fixture
def server() -> Iterator[tuple[str, _Script]]:
    script = _Script()
    script.seen, script.posted = [], []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(script))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", script
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "app.py").write_text("def f():\n    return 1\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SPARK_CONFIG_DIR", str(tmp_path / "no-user-config"))
    monkeypatch.setenv("SPARK_CACHE_DIR", str(tmp_path / "cache"))  # the windows asked
    for name in ("SPARK_API_KEY", "OPENAI_API_KEY", "SPARK_PROVIDER", "SPARK_BASE_URL",
                 "SPARK_MODEL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def edit(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["edit", "app.py", "-m", "change f", *args])
    return result.exit_code, result.stderr


def test_404_without_v1_names_the_url_and_suggests_adding_it(server, repo):
    url, script = server
    code, err = edit("--provider", "openai-compatible", "--base-url", url, "--model", "m")
    assert code == 3, err
    assert f"POST {url}/chat/completions" in err
    assert f"try --base-url {url}/v1" in err
    # a 404 is not retried (the window's asks go first: GET /props, /v1/models, ...)
    assert [s for s in script.seen if "/chat/" in s] == ["POST /chat/completions"]


def user_kind(repo: Path, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    """``[providers.openai] kind`` in a user config of its own (a project file may not set it)."""
    user = repo / ".user-config"
    user.mkdir(exist_ok=True)
    (user / "config.toml").write_text(f'[providers.openai]\nkind = "{kind}"\n')
    monkeypatch.setenv("SPARK_CONFIG_DIR", str(user))


def test_404_on_responses_over_http_suggests_chat_completions(server, repo, monkeypatch):
    url, _ = server
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    user_kind(repo, monkeypatch, "responses_sse")
    code, err = edit("--provider", "openai", "--base-url", f"{url}/v1")
    assert code == 3, err
    assert f"POST {url}/v1/responses" in err
    assert "--provider openai-compatible" in err and "/provider openai-compatible" in err
    assert "/v1:" not in err  # the base URL has its /v1
    assert KEY not in err


def test_404_on_the_responses_websocket_suggests_chat_completions(server, repo, monkeypatch):
    url, _ = server
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    code, err = edit("--provider", "openai", "--base-url", f"{url}/v1")
    assert code == 3, err
    assert f"GET ws://127.0.0.1:{url.rsplit(':', 1)[1]}/v1/responses" in err
    assert "--provider openai-compatible" in err


@pytest.mark.parametrize("status", [401, 403])
def test_refused_key_names_its_variable_masked(server, repo, monkeypatch, status):
    url, script = server
    script.status = status
    script.body = b'{"error": {"message": "Incorrect API key provided: ' + KEY.encode() + b'"}}'
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    user_kind(repo, monkeypatch, "responses_sse")
    code, err = edit("--provider", "openai", "--base-url", f"{url}/v1")
    assert code == 3, err
    assert f"{status} authentication failed" in err
    assert f"POST {url}/v1/responses" in err
    assert "the key from OPENAI_API_KEY (sk-…WXYZ) was refused" in err
    assert KEY not in err and KEY[-8:] not in err


def test_missing_key_names_the_variable_to_set(server, repo):
    url, script = server
    script.status = 401
    code, err = edit("--provider", "openai-compatible", "--base-url", f"{url}/v1", "--model", "m")
    assert code == 3, err
    assert f"POST {url}/v1/chat/completions" in err
    assert "no API key was sent: set SPARK_API_KEY" in err


def test_an_overflow_is_sent_once_more_within_the_window_it_taught(server, repo, monkeypatch):
    """The first request overflows a 2,048 window (the server says both sizes); the session
    sends it once more, sized to it, and the run ends with the answer."""
    assert _overflow_once(server, repo, monkeypatch, "explain f") == ["m", "m"]


def test_the_resend_of_a_prompt_files_turn_keeps_its_model(server, repo, monkeypatch):
    (repo / ".user-config" / "commands").mkdir(parents=True)
    (repo / ".user-config" / "commands" / "deep.md").write_text(
        "---\nmodel: big-model\n---\nExplain $1.\n")
    assert _overflow_once(server, repo, monkeypatch, "/deep f") == ["big-model", "big-model"]


def _overflow_once(server, repo, monkeypatch, message: str) -> list[str]:
    url, script = server
    script.status, script.refused = 400, 1
    script.body = json.dumps({"error": {
        "message": "This model's maximum context length is 2048 tokens. However, you "
                   "requested 3000 tokens (3000 in the messages, 0 in the completion).",
        "code": "context_length_exceeded"}}).encode()
    user = repo / ".user-config"
    user.mkdir(exist_ok=True)
    (user / "config.toml").write_text("context_window = 16000\n")
    monkeypatch.setenv("SPARK_CONFIG_DIR", str(user))
    result = CliRunner().invoke(app, ["edit", "app.py", "-m", message, "--provider",
                                      "openai-compatible", "--base-url", f"{url}/v1",
                                      "--model", "m"])
    assert result.exit_code in (0, 5), result.output
    said = result.stdout + result.stderr
    assert "larger than the model's window (2.0k)" in said, said
    assert "sending once more within 2,048 tokens" in said
    assert "It adds one." in result.stdout
    assert len(script.posted) == 2
    assert len(script.posted[1]) < len(script.posted[0])  # sized to 2k: tools left out
    return [json.loads(body)["model"] for body in script.posted]
