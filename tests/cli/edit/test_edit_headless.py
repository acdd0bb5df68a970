"""`spark edit` run by a harness: stream-json read by claude-agent-sdk's own parser, usage and
cost, --max-turns, --timeout, no terminal; real processes, the bundled engine and a scripted
model in OpenAI's wire shapes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk._internal.message_parser import parse_message
from claude_agent_sdk.types import AssistantMessage, ResultMessage, SystemMessage, UserMessage

from spark_cli.session.spend.limits import TIME_HEAD
from tests.cli.edit.openai_script import Model, chat_model, responses_model

KEY = "sk-spark-test-0123456789abcdef"
REPO = Path(__file__).resolve().parents[3] / "examples" / "repo"
EDIT = "Done.\napp.py\n<<<<<<< SEARCH\n    return 1\n=======\n    return 2\n>>>>>>> REPLACE\n"
PRICING = '[pricing."m"]\ninput = 2.0\ncached_input = 0.5\noutput = 8.0\n'


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text("def one():\n    return 1\n")
    (tmp_path / "user").mkdir()
    (tmp_path / "user" / "config.toml").write_text(PRICING)
    return root


def _spark(root: Path, *args: str, timeout: float = 60,
           stdin: int | None = subprocess.DEVNULL) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPARK_")}
    env.update(SPARK_CONFIG_DIR=str(root.parent / "user"), SPARK_API_KEY=KEY,
               SPARK_STATE_DIR=str(root.parent / "state"), NO_COLOR="1",
               PYTHONPATH=str(Path(__file__).resolve().parents[3]))
    return subprocess.run([sys.executable, "-m", "spark_cli", "edit", "--root", str(root),
                           *args], cwd=root, env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=stdin)


def _parsed(stdout: str) -> list[Any]:
    """Every line through the SDK's parser; each must be a message it knows (not skipped)."""
    messages = []
    for line in stdout.splitlines():
        message = parse_message(json.loads(line))
        assert message is not None, f"the SDK skipped {line[:120]}"
        messages.append(message)
    return messages


def _blocks(messages: list[Any], kind: type) -> list[Any]:
    return [b for m in messages if isinstance(m, kind) for b in m.content]


@pytest.mark.parametrize("wire", ["chat", "responses"])
def test_stream_json_of_a_scripted_model_is_claudes(repo: Path, wire: str) -> None:
    model = Model(("read_file", {"path": "app.py"}), {"command": "echo hi"}, answer=EDIT,
                  usage=True)
    serve = chat_model if wire == "chat" else responses_model
    provider = "openai-compatible" if wire == "chat" else "openai"
    with serve(model) as url:
        done = _spark(repo, "app.py", "-m", "make it two", "--provider", provider,
                      "--base-url", url, "--model", "m", "--format", "search_replace",
                      "--commands", "sandbox", "--output-format", "stream-json")
    assert done.returncode == 0, done.stderr
    messages = _parsed(done.stdout)
    init, result = messages[0], messages[-1]
    assert isinstance(init, SystemMessage) and init.subtype == "init"
    assert init.data["model"] == "m" and "run_command" in init.data["tools"]
    uses = [b for b in _blocks(messages, AssistantMessage) if hasattr(b, "input")]
    assert [(u.name, u.input) for u in uses] == [("read_file", {"path": "app.py"}),
                                                ("run_command", {"command": "echo hi"})]
    results = _blocks(messages, UserMessage)
    assert [r.tool_use_id for r in results] == [u.id for u in uses]
    assert "hi" in results[1].content and results[1].is_error is False
    edits = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "edit_applied"]
    assert len(edits) == 1 and "+    return 2" in edits[0].data["diff"]
    assert (repo / "app.py").read_text() == "def one():\n    return 2\n"
    assert isinstance(result, ResultMessage) and result.subtype == "success"
    assert not result.is_error and result.num_turns == 2 and "Done." in (result.result or "")
    reported = model.reported  # (input with the cached, cached, output) per response
    assert result.usage == {"input_tokens": sum(i - c for i, c, _ in reported),
                            "cache_creation_input_tokens": 0,
                            "cache_read_input_tokens": sum(c for _, c, _ in reported),
                            "output_tokens": sum(o for *_, o in reported)}
    assert result.total_cost_usd == pytest.approx((1800 * 2.0 + 1200 * 0.5 + 30 * 8.0) / 1e6)
    assert result.session_id == init.data["session_id"]


def test_stream_json_of_the_bundled_engine_is_claudes_and_its_usage_exact(
        tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(REPO, root)
    ask = "replace 'discount must be 0-100' with 'discount must be between 0 and 100'"
    streamed = _spark(root, "-m", ask, "--output-format", "stream-json")
    assert streamed.returncode == 0, streamed.stderr
    messages = _parsed(streamed.stdout)
    names = [b.name for b in _blocks(messages, AssistantMessage) if hasattr(b, "input")]
    assert names == ["search", "read_file"]
    assert len(_blocks(messages, UserMessage)) == 2
    assert "between 0 and 100" in (root / "src" / "shop" / "pricing.py").read_text()
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "success"
    assert result.num_turns == 3 and result.total_cost_usd == 0.0  # it runs here: free
    shutil.rmtree(root)
    shutil.copytree(REPO, root)
    events = [json.loads(line) for line in _spark(root, "-m", ask, "--json").stdout.splitlines()]
    reports = [e for e in events if e["type"] == "usage_reported"]
    usage = next(e for e in events if e["type"] == "turn_completed")["usage"]
    assert len(reports) == usage["requests"] == 3 and not usage["counted"]
    assert usage["input_tokens"] == sum(r["input_tokens"] for r in reports)
    assert usage["output_tokens"] == sum(r["output_tokens"] for r in reports)
    assert result.usage is not None
    assert result.usage["input_tokens"] == usage["input_tokens"]  # the same run's figures
    assert result.usage["output_tokens"] == usage["output_tokens"]


def test_max_turns_stops_the_tool_loop(repo: Path) -> None:
    model = Model(("read_file", {"path": "app.py"}), answer=EDIT)
    with chat_model(model) as url:
        done = _spark(repo, "app.py", "-m", "make it two", "--provider", "openai-compatible",
                      "--base-url", url, "--model", "m", "--max-turns", "1",
                      "--output-format", "stream-json")
    result = _parsed(done.stdout)[-1]
    assert len(model.requests) == 1 and model.outputs == []
    assert isinstance(result, ResultMessage) and result.subtype == "error_max_turns"
    assert result.is_error and result.num_turns == 1
    assert (repo / "app.py").read_text() == "def one():\n    return 1\n"


def test_each_request_is_told_the_time_left(repo: Path) -> None:
    model = Model(("read_file", {"path": "app.py"}), answer=EDIT)
    with chat_model(model) as url:
        done = _spark(repo, "app.py", "-m", "make it two", "--provider", "openai-compatible",
                      "--base-url", url, "--model", "m", "--timeout", "300")
    assert done.returncode == 0, done.stderr
    notes = [r["messages"][0]["content"].split(TIME_HEAD)[1] for r in model.requests]
    assert len(notes) == 2 and all(n.count("This run ends in") == 1 for n in notes)
    first, second = (float(n.split("ends in ")[1].split(" s")[0]) for n in notes)
    assert 0 < second <= first <= 300


def test_timeout_stops_a_slow_answer_and_keeps_its_edit(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text("def one():\n    return 1\n")
    (tmp_path / "user").mkdir()
    tail = "still working on it. " * 150 + "THE END\n"  # ~600 tokens: 30 s at 20 tok/s
    script = tmp_path / "slow.toml"
    script.write_text("[[entries]]\nanswer = " + json.dumps(EDIT + tail) + "\n")
    engine = subprocess.Popen(
        [sys.executable, "-m", "spark_cli", "engine", "serve", "--port", "0", "--tps", "20",
         "--ttft-ms", "0", "--brain", f"script:{script}"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert engine.stdout is not None
        url = engine.stdout.readline().split(" on ")[1].split(" ")[0]
        began = time.monotonic()
        done = _spark(root, "app.py", "-m", "make it two", "--base-url", url,
                      "--no-tools", "--timeout", "5", "--output-format", "stream-json")
        took = time.monotonic() - began
    finally:
        engine.terminate()
        engine.wait(10)
        if engine.stdout is not None:
            engine.stdout.close()
    assert done.returncode == 124, done.stderr
    assert "--timeout ran out" in done.stderr
    messages = _parsed(done.stdout)
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "error_during_execution"
    assert result.errors == ["timeout"] and result.stop_reason == "timeout"
    said = "".join(b.text for b in _blocks(messages, AssistantMessage) if hasattr(b, "text"))
    assert "still working" in said and "THE END" not in said  # cut, not finished
    assert (root / "app.py").read_text() == "def one():\n    return 2\n"
    assert took < 25  # generous: the answer alone takes 30 s


def _run_whole_repo(tmp_path: Path, shell: str) -> subprocess.CompletedProcess[str]:
    root = tmp_path / "repo"
    shutil.copytree(REPO, root)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPARK_")}
    env.update(SPARK_CONFIG_DIR=str(tmp_path / "user"), SPARK_STATE_DIR=str(tmp_path / "s"),
               PYTHONPATH=str(Path(__file__).resolve().parents[3]), NO_COLOR="1")
    line = (f"{sys.executable} -m spark_cli edit -m \"replace 'discount must be 0-100' with "
            f"'discount must be between 0 and 100'\" {shell}")
    return subprocess.run(["bash", "-c", line], cwd=root, env=env, capture_output=True,
                          text=True, timeout=60)


@pytest.mark.parametrize("shell", ["< /dev/null", "<&-", "< /dev/null | cat"])
def test_no_path_and_no_code_on_stdin_is_the_whole_repo(tmp_path: Path, shell: str) -> None:
    done = _run_whole_repo(tmp_path, shell)
    assert done.returncode == 0, done.stderr
    assert "search discount" in done.stderr and "1 applied" in done.stdout
    text = (tmp_path / "repo" / "src" / "shop" / "pricing.py").read_text()
    assert "between 0 and 100" in text


@pytest.mark.parametrize(("flags", "needle"), [
    (["--output-format", "xml"], "--output-format must be one of text, json, stream-json, "
                                 "not 'xml'"),
    (["--output-format", "text", "--json"], "--json is --output-format json"),
    (["--max-turns", "0"], "--max-turns must be at least 1 (model requests), not 0"),
    (["--timeout", "-1"], "--timeout must be a number of seconds above 0, not -1"),
    (["--timeout=-1"], "--timeout must be a number of seconds above 0, not -1"),
    (["--timeout", "0"], "--timeout must be a number of seconds above 0, not 0"),
    (["--timeout", "nan"], "--timeout must be a number of seconds above 0, not nan"),
])
def test_bad_limits_and_formats_are_usage_errors(repo: Path, flags: list[str],
                                                 needle: str) -> None:
    done = _spark(repo, "app.py", "-m", "make it two", *flags)
    assert done.returncode == 2, done.stderr
    assert needle in done.stderr and done.stdout == ""
    assert (repo / "app.py").read_text() == "def one():\n    return 1\n"
