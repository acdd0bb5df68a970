"""`spark edit` with a real MCP server from the registry (mcp-server-time): a scripted model
in OpenAI's shapes calls its tool; allowed, it gets the server's real answer; not allowed,
an error result; the second run declares the tools in its first request; nothing is left
running after the process exits."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from trusting import write_project

from tests.cli.edit.openai_script import Model, chat_model

TOOL = "mcp__time__get_current_time"


def _server() -> str:
    found = shutil.which("mcp-server-time") or str(Path(sys.executable).with_name(
        "mcp-server-time"))
    assert Path(found).exists(), "mcp-server-time is not installed (pip install -e '.[dev]')"
    return found


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".spark").mkdir(parents=True)
    (root / "app.py").write_text("def one():\n    return 1\n")
    return root


def _own_server(repo: Path) -> Path:
    """The server under a path of this test's own (a link), so that pgrep sees only its
    processes, never those of another suite on the same machine."""
    return repo.parent / "mcp-server-time"


def _configure(repo: Path, *, allowed: bool) -> None:
    """The server in the (trusted) project config; with ``allowed``, in the user config (only
    the user's ``allowed_tools`` pre-approve)."""
    allow = 'allowed_tools = ["get_current_time"]\n' if allowed else ""
    if not _own_server(repo).exists():
        _own_server(repo).symlink_to(_server())
    text = (f'[mcp_servers.time]\ncommand = "{_own_server(repo)}"\n'
            'args = ["--local-timezone", "UTC"]\n' + allow)
    if allowed:
        (repo.parent / "user").mkdir(exist_ok=True)
        (repo.parent / "user" / "config.toml").write_text(text)
    else:
        write_project(repo, text)


def _edit(repo: Path, url: str, *flags: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPARK_")}
    env.update(SPARK_CONFIG_DIR=str(repo.parent / "user"),
               SPARK_STATE_DIR=os.environ["SPARK_STATE_DIR"],
               XDG_CACHE_HOME=str(repo.parent / "cache"),
               PYTHONPATH=str(Path(__file__).resolve().parents[3]))
    return subprocess.run(
        [sys.executable, "-m", "spark_cli", "edit", "app.py", "-m", "what time is it",
         "--root", str(repo), "--provider", "openai-compatible", "--base-url", url,
         "--model", "m", *flags],
        cwd=repo, env=env, capture_output=True, text=True, timeout=90,
        stdin=subprocess.DEVNULL)


def _left(repo: Path) -> str:
    return subprocess.run(["pgrep", "-f", str(_own_server(repo))], capture_output=True,
                          text=True).stdout


def test_an_allowed_tool_gets_the_servers_answer_and_is_declared_from_the_next_run(
        repo: Path) -> None:
    _configure(repo, allowed=True)
    first = Model((TOOL, {"timezone": "UTC"}))
    with chat_model(first) as url:
        done = _edit(repo, url, "--json")
    [answer] = first.outputs
    assert '"timezone": "UTC"' in answer and "datetime" in answer, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    finished = [e for e in events if e["type"] == "tool_call_finished"]
    assert finished[0]["server"] == "time" and finished[0]["ok"]
    assert _left(repo) == "", "an MCP server outlived spark edit"
    second = Model((TOOL, {"timezone": "Europe/Paris"}))
    with chat_model(second) as url:
        _edit(repo, url)
    declared = [t["function"]["name"] for t in second.requests[0]["tools"]]
    assert TOOL in declared  # from the last run's cache, before the server is up
    assert "Europe/Paris" in second.outputs[0]


def test_a_tool_not_allowed_is_refused_with_an_error_result(repo: Path) -> None:
    _configure(repo, allowed=False)
    model = Model((TOOL, {"timezone": "UTC"}))
    with chat_model(model) as url:
        done = _edit(repo, url)
    [answer] = model.outputs
    assert answer.startswith("declined: the user did not allow this tool call"), done.stderr
    assert "time get_current_time" in done.stderr
    assert _left(repo) == ""
