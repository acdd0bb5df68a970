"""Every key spark can see is masked in all it prints, whoever wrote the text (issue 12).

Two keys set (SPARK_API_KEY in use, OPENAI_API_KEY not), a loopback server whose
401 quotes both: neither reaches stderr nor the ``--json`` events, on every channel.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spark_cli.cli.main import app

IN_USE = "sk-other-0123456789abcdefghij"
NOT_IN_USE = "sk-test-ZYXWVUTSRQPONMLKJIHG"
SECRETS = (IN_USE, NOT_IN_USE, IN_USE[-8:], NOT_IN_USE[-8:])


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "app.py").write_text("x = 1\n")
    config = tmp_path / "config"
    config.mkdir()
    monkeypatch.setenv("SPARK_CONFIG_DIR", str(config))
    monkeypatch.delenv("CEREBRAS_API_KEY", raising=False)
    monkeypatch.setenv("SPARK_API_KEY", IN_USE)
    monkeypatch.setenv("OPENAI_API_KEY", NOT_IN_USE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def quoting_server() -> Iterator[str]:
    """Answers every request (HTTP POST or WebSocket handshake) with a 401 quoting both keys."""
    message = f"Incorrect API key provided: {IN_USE}; OPENAI_API_KEY={NOT_IN_USE}"
    body = json.dumps({"error": {"message": message, "type": "invalid_request_error",
                                 "code": "invalid_api_key"}}).encode()
    answer = (b"HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\n"
              b"content-length: %d\r\nconnection: close\r\n\r\n" % len(body)) + body
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(5)
                head = b""
                while b"\r\n\r\n" not in head:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    head += chunk
                conn.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    stop.set()
    thread.join(5)
    listener.close()


@pytest.mark.parametrize("kind", ["responses_ws", "chat_sse", "responses_sse"])
@pytest.mark.parametrize("as_json", [False, True])
def test_a_401_quoting_both_keys_shows_neither(repo: Path, quoting_server: str, kind: str,
                                               as_json: bool) -> None:
    (repo / "config" / "config.toml").write_text(f'kind = "{kind}"\n')
    args = ["edit", "app.py", "--provider", "openai-compatible", "--model", "m",
            "--base-url", quoting_server, "-m", "rename x"]
    result = CliRunner().invoke(app, [*args, "--json"] if as_json else args)
    assert result.exit_code == 3, result.output
    assert "Incorrect API key provided: ***" in result.stderr
    for secret in SECRETS:
        assert secret not in result.stdout and secret not in result.stderr
    if as_json:
        events = [json.loads(line) for line in result.stdout.splitlines()]
        assert [e["type"] for e in events][-2:] == ["turn_failed", "summary"]
        assert "***" in events[-2]["message"]


def test_spark_config_masks_a_key_hidden_in_any_value(repo: Path) -> None:
    url = f"https://example.test/v1?key={NOT_IN_USE}"
    for extra in ([], ["--json"]):
        result = CliRunner().invoke(app, ["config", "--provider", "openai-compatible",
                                          "--base-url", url, *extra])
        assert result.exit_code == 0, result.output
        assert "example.test/v1?key=***" in result.stdout
        for secret in SECRETS:
            assert secret not in result.stdout
