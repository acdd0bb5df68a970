"""A one-shot's first run with a real MCP server (mcp-server-time) and no cached tool list:
`spark edit` waits for the server once, so its first request already declares the tools and
the cache is written; `spark mcp list` starts the servers, shows their tools and state."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from trusting import write_project

from tests.cli.edit.openai_script import Model, chat_model
from tests.cli.edit.test_edit_mcp import TOOL, _configure, _left

ROOT = str(Path(__file__).resolve().parents[3])


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".spark").mkdir(parents=True)
    (root / "app.py").write_text("def one():\n    return 1\n")
    return root


def _spark(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPARK_")}
    env.update(SPARK_CONFIG_DIR=str(repo.parent / "user"), PYTHONPATH=ROOT,
               SPARK_STATE_DIR=os.environ["SPARK_STATE_DIR"],
               XDG_CACHE_HOME=str(repo.parent / "cache"))
    return subprocess.run([sys.executable, "-m", "spark_cli", *args], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL)


def _cached(repo: Path) -> list[Path]:
    return sorted((repo.parent / "cache" / "spark" / "mcp").glob("time-*.json"))


def test_the_first_request_of_the_first_run_declares_the_servers_tools(repo: Path) -> None:
    _configure(repo, allowed=True)
    assert _cached(repo) == []
    model = Model((TOOL, {"timezone": "UTC"}))
    with chat_model(model) as url:
        done = _spark(repo, "edit", "app.py", "-m", "what time is it", "--provider",
                      "openai-compatible", "--base-url", url, "--model", "m",
                      "--output-format", "stream-json")
    declared = [t["function"]["name"] for t in model.requests[0]["tools"]]
    assert TOOL in declared, done.stderr
    init = json.loads(done.stdout.splitlines()[0])
    assert init["subtype"] == "init" and TOOL in init["tools"]
    assert "datetime" in model.outputs[0]
    assert len(_cached(repo)) == 1
    assert _left(repo) == ""


def test_mcp_list_starts_the_servers_shows_their_tools_and_writes_the_cache(
        repo: Path) -> None:
    _configure(repo, allowed=False)
    done = _spark(repo, "mcp", "list")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("time: ready (stdio ")
    assert "tools: get_current_time, convert_time" in done.stdout
    assert len(_cached(repo)) == 1 and _left(repo) == ""
    listed = json.loads(_spark(repo, "mcp", "list", "--json").stdout)
    assert [(s["name"], s["state"]) for s in listed] == [("time", "ready")]
    assert "get_current_time" in listed[0]["tools"]


def test_mcp_list_says_why_a_server_did_not_start_and_exits_1(repo: Path) -> None:
    write_project(repo, '[mcp_servers.broken]\ncommand = "/nonexistent/mcp-server"\n')
    done = _spark(repo, "mcp", "list")
    assert done.returncode == 1
    assert "broken: failed" in done.stdout and "No such file or directory" in done.stdout


def test_mcp_list_with_a_bad_table_is_a_usage_error(repo: Path) -> None:
    write_project(repo, '[mcp_servers.x]\ncommand = 3\n')
    done = _spark(repo, "mcp", "list")
    assert done.returncode == 2 and "spark mcp: " in done.stderr and "command" in done.stderr
    assert done.stdout == ""
