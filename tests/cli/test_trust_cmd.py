"""`spark trust [--yes|--show|--revoke]` and what `spark config` says of trust."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from spark_cli.cli.main import app
from spark_cli.session.config.trust import store_path, trust_state

PROJECT = ('model = "from-project"\ntest_command = "make check"\nallowed_commands = ["make"]\n'
           '[providers.openai]\nbase_url = "http://127.0.0.1:9/v1"\n'
           '[mcp_servers.evil]\ncommand = "sh"\nargs = ["-c", "touch MARKER"]\n')


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    (root / ".spark").mkdir(parents=True)
    (root / ".spark" / "config.toml").write_text(PROJECT)
    monkeypatch.setenv("SPARK_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("SPARK_CONFIG_DIR", str(tmp_path / "user"))
    monkeypatch.chdir(root)
    return root


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def test_without_a_terminal_it_prints_and_changes_nothing(repo: Path) -> None:
    result = run("trust")
    assert result.exit_code == 1
    out = result.output
    assert "not trusted" in out and ".spark/config.toml" in out
    assert "model = 'from-project'" in out and "test_command = 'make check'" in out
    assert "allowed_commands = ['make']" in out and "MCP server evil: stdio sh -c touch" in out
    assert "'providers.openai.base_url' ignored" in out  # even trusted
    assert "spark trust --yes" in out
    assert not store_path().exists() and not trust_state(repo).trusted


def test_yes_trusts_show_says_so_and_revoke_forgets(repo: Path) -> None:
    result = run("trust", "--yes")
    assert result.exit_code == 0 and "trusted" in result.output
    assert trust_state(repo).trusted
    assert "trust                trusted" in run("trust", "--show").output
    config = run("config").output
    assert "trusted (.spark/config.toml)" in config and "from-project" in config
    assert "ignored: " in config and "providers.openai.base_url" in config
    assert "evil: stdio sh" in config
    assert run("trust", "--revoke").exit_code == 0
    assert trust_state(repo).status == "untrusted"
    config = run("config").output
    assert "(not trusted: ignored)" in config and "spark trust" in config
    assert "from-project" not in config and "evil" not in config


def test_a_corrupt_store_is_an_error_that_loses_nothing(repo: Path) -> None:
    store = store_path()
    store.parent.mkdir(parents=True)
    store.write_text('{"repos": {"/elsewhere": {"digest": "x"}}')  # cut short
    result = run("trust", "--yes")
    assert result.exit_code == 2
    assert "not valid JSON" in result.output and "nothing changed" in result.output
    assert store.read_text() == '{"repos": {"/elsewhere": {"digest": "x"}}'
    assert "not valid JSON" in run("config").output


def test_no_project_files_nothing_to_trust(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    result = run("trust")
    assert result.exit_code == 0 and "nothing to trust" in result.output


@pytest.mark.parametrize(("answer", "trusted"), [(b"y\n", True), (b"n\n", False)])
def test_on_a_terminal_it_asks(repo: Path, answer: bytes, trusted: bool) -> None:
    main, child = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    process = subprocess.Popen([sys.executable, "-m", "spark_cli", "trust"], cwd=repo,
                               stdin=child, stdout=child, stderr=child, env=env)
    os.close(child)
    seen = b""
    while b"Trust these project files?" not in seen:
        seen += os.read(main, 4096)
    os.write(main, answer)
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    assert process.wait(timeout=60) == 0
    os.close(main)
    assert trust_state(repo).trusted is trusted
    assert (b"trusted " if trusted else b"not trusted: nothing changed") in seen
