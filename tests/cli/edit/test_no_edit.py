"""`spark edit` when the answer holds no edit block: named, exit 5, the original on stdout in
pipe mode; a fenced whole file of a small file applied as an edit (issue 20 item 5)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spark_cli.cli.main import app
from tests.cli.edit.chat_script import ChatScript, chat_server

PY = "def total_price(items):\n    return sum(items)\n\n\nprint(total_price([1, 2]))\n"
WHOLE = ("Here is the updated file:\n\n```python\ndef grand_total(items):\n"
         "    return sum(items)\n\n\nprint(grand_total([1, 2]))\n```\n")


@pytest.fixture
def script() -> ChatScript:
    return ChatScript()


@pytest.fixture
def base_url(script: ChatScript) -> Iterator[str]:
    with chat_server(script) as url:
        yield url


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "app.py").write_text(PY)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SPARK_CONFIG_DIR", str(tmp_path / "no-user-config"))
    for name in ("SPARK_API_KEY", "SPARK_PROVIDER", "SPARK_BASE_URL", "SPARK_MODEL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def edit(base_url: str, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["edit", "app.py", "-m", "rename total_price", "--provider",
                                      "openai-compatible", "--base-url", base_url, "--model",
                                      "m", *args])
    return result.exit_code, result.stdout, result.stderr


def test_prose_only_is_named_with_exit_5(script, base_url, repo):
    script.answer = "I think the name total_price is fine as it is.\n"
    code, _, err = edit(base_url)
    assert code == 5, err
    assert ("spark edit: no edit: the answer was prose only (10 words); no SEARCH/REPLACE "
            "block (exit 5)") in err
    assert (repo / "app.py").read_text() == PY


def test_a_snippet_in_a_fence_is_named(script, base_url, repo):
    script.answer = "Change it like this:\n```python\ndef grand_total(items):\n```\n"
    code, _, err = edit(base_url)
    assert code == 5
    assert "no edit: the answer held code in a fence (1 line) but no SEARCH/REPLACE block" in err


def test_an_empty_answer_is_named(script, base_url, repo):
    code, _, err = edit(base_url, "--json")
    assert code == 5
    assert "no edit: the answer was empty" in err


def test_a_whole_file_in_a_fence_is_applied_as_an_edit(script, base_url, repo):
    script.answer = WHOLE
    code, out, err = edit(base_url)
    assert code == 0, out + err
    assert "applied it as a whole-file replacement" in out
    assert "-def total_price(items):\n+def grand_total(items):" in out
    assert "1 applied, 0 refused" in out
    assert (repo / "app.py").read_text() == WHOLE.split("```python\n")[1].split("```")[0]
    undo = CliRunner().invoke(app, ["undo"])
    assert undo.exit_code == 0, undo.output
    assert (repo / "app.py").read_text() == PY


def test_a_whole_file_that_does_not_parse_is_not_applied(script, base_url, repo):
    script.answer = WHOLE.replace("def grand_total(items):", "def grand_total(items:")
    code, _, err = edit(base_url)
    assert code == 5
    assert "no edit: the answer held a whole file in a fence (5 lines); no SEARCH/REPLACE" in err
    assert (repo / "app.py").read_text() == PY


def test_a_whole_file_is_not_applied_to_a_big_file(script, base_url, repo):
    big = PY + "".join(f"x{i} = {i}\n" for i in range(250))
    (repo / "app.py").write_text(big)
    script.answer = "```python\n" + big.replace("total_price", "grand_total") + "```\n"
    code, _, err = edit(base_url)
    assert code == 5 and "held a whole file in a fence" in err
    assert (repo / "app.py").read_text() == big


def test_dry_run_shows_the_whole_file_diff_writes_nothing(script, base_url, repo):
    script.answer = WHOLE
    code, out, _ = edit(base_url, "--dry-run")
    assert code == 0 and "+def grand_total(items):" in out
    assert (repo / "app.py").read_text() == PY


def test_an_answer_cut_at_the_cap_names_the_setting(script, base_url, repo):
    script.answer, script.finish = "Let me think about this. " * 20, "length"
    code, _, err = edit(base_url, "--max-output-tokens", "64")
    assert code == 5, err
    assert "no edit: the answer stopped at the output cap before any edit block" in err
    assert ("the answer stopped at the output cap (max_output_tokens = 64 tokens); raise it "
            "with --max-output-tokens N") in err


def test_json_summary_carries_no_edit(script, base_url, repo):
    script.answer = "No change needed.\n"
    code, out, _ = edit(base_url, "--json")
    assert code == 5
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["type"] == "summary" and summary["exit_code"] == 5
    assert summary["no_edit"]["kind"] == "prose"


def _pipe(base_url: str, data: bytes, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPARK_")}
    env["SPARK_CONFIG_DIR"] = str(cwd / "no-user-config")
    return subprocess.run(
        [sys.executable, "-m", "spark_cli", "edit", "-m", "rename", "--provider",
         "openai-compatible", "--base-url", base_url, "--model", "m"],
        input=data, capture_output=True, cwd=cwd, env=env, timeout=120, check=False)


def test_pipe_no_edit_gives_the_original_and_exit_5(script, base_url, repo):
    script.answer = "Nothing to change here.\n"
    done = _pipe(base_url, PY.encode(), repo)
    assert done.returncode == 5, done.stderr
    assert done.stdout == PY.encode()
    assert b"no edit: the answer was prose only" in done.stderr
    assert b"no edit: the original text was written to stdout unchanged" in done.stderr


def test_pipe_whole_file_answer_gives_the_new_text(script, base_url, repo):
    script.answer = WHOLE
    done = _pipe(base_url, PY.encode(), repo)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode() == PY.replace("total_price", "grand_total")


def test_answer_of_takes_the_assistant_text_and_the_tools_called():
    from spark_cli.cli.edit.edit_run import answer_of
    from spark_cli.protocol.channel import Message, ToolCall, ToolOutput

    items = [Message("user", "x"), ToolCall("c1", "read_file", "{}"), ToolOutput("c1", "..."),
             Message("assistant", "It is "), Message("assistant", "fine.")]
    assert answer_of(items) == ("It is fine.", ("read_file",))
