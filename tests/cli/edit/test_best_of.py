"""`spark edit --best-of N`: events (--json, stream-json), exit codes, bad input, a check
that hangs, --max-turns and --timeout, --judge deep."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claude_agent_sdk._internal.message_parser import parse_message
from claude_agent_sdk.types import ResultMessage, SystemMessage
from trusting import write_project
from typer.testing import CliRunner

from spark_cli.cli.main import app
from tests.cli.edit.openai_script import Model, chat_model

PY = "def total_price(items):\n    return sum(items)\n"
RENAME = "rename total_price to grand_total"
EDIT = ("app.py\n<<<<<<< SEARCH\n    return sum(items)\n=======\n    return sum(items) + 0\n"
        ">>>>>>> REPLACE\n")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "app.py").write_text(PY)
    (tmp_path / ".spark").mkdir()
    config = tmp_path.parent / f"{tmp_path.name}-config"
    config.mkdir()
    monkeypatch.setenv("SPARK_CONFIG_DIR", str(config))
    for key in ("OPENAI_API_KEY", "CEREBRAS_API_KEY", "SPARK_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(args: list[str], stdin: str | None = None) -> tuple[int, list[dict[str, object]], str]:
    result = CliRunner().invoke(app, ["edit", *args], input=stdin)
    events = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    return result.exit_code, events, result.stderr


def test_every_candidate_finishes_once_and_one_is_chosen(repo: Path) -> None:
    code, events, err = _run(["app.py", "--json", "--best-of", "3", "-m", RENAME])
    assert code == 0, err
    started = sorted(e["candidate"] for e in events if e["type"] == "candidate_started")
    finished = sorted(e["candidate"] for e in events if e["type"] == "candidate_finished")
    assert started == finished == [1, 2, 3]
    [chosen] = [e for e in events if e["type"] == "candidate_chosen"]
    assert "every edit applied" in str(chosen["reason"])
    assert "grand_total" in (repo / "app.py").read_text()
    assert "verdict" in err and "* " + str(chosen["candidate"]) in err  # the table, marked


@pytest.mark.parametrize("n", ["0", "9"])
def test_out_of_range_is_a_usage_error(repo: Path, n: str) -> None:
    code, _, err = _run(["app.py", "--best-of", n, "-m", RENAME])
    assert (code, err.strip()) == (2, f"spark edit: --best-of must be 1 to 8, not {n}")
    assert (repo / "app.py").read_text() == PY


def test_the_pipe_filter_refuses_best_of(repo: Path) -> None:
    code, _, err = _run(["--best-of", "2", "-m", RENAME], stdin=PY)
    assert code == 2 and "the pipe filter gives one answer on one stdout" in err


def test_a_hanging_check_is_killed_and_nothing_applies(repo: Path) -> None:
    write_project(repo, 'best_of_check = "sleep 600"\nbest_of_check_timeout_s = 1\n')
    code, events, err = _run(["app.py", "--json", "--best-of", "2", "-m", RENAME])
    assert code == 4, err
    done = [e for e in events if e["type"] == "candidate_finished"]
    assert done and all(e["check_result"] == "timed out" for e in done)
    assert all(e["verdict"] == "fail: check timed out" for e in done)
    assert "no candidate passes" in err
    assert (repo / "app.py").read_text() == PY


def test_a_failing_check_applies_nothing(repo: Path) -> None:
    write_project(repo, 'best_of_check = "grep -q total_price app.py"\n')
    code, _, err = _run(["app.py", "--best-of", "2", "-m", RENAME])
    assert code == 4 and "FAILED (exit 1)" in err
    assert (repo / "app.py").read_text() == PY


def test_max_turns_bounds_each_candidates_tool_loop(repo: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPARK_API_KEY", "sk-spark-test-0123456789abcdef")
    model = Model(("read_file", {"path": "app.py"}), answer=EDIT)
    with chat_model(model) as url:
        code, _, err = _run(["app.py", "--json", "--best-of", "2", "--max-turns", "1",
                             "--provider", "openai-compatible", "--base-url", url,
                             "--model", "m", "-m", "make it plus zero"])
    assert len(model.requests) == 2  # one each: the read, never the follow-up that edits
    assert code == 4 and "no candidate passes" in err
    assert (repo / "app.py").read_text() == PY


def test_a_timeout_stops_every_candidate(repo: Path) -> None:
    write_project(repo, 'best_of_check = "sleep 600"\n')
    code, events, err = _run(["app.py", "--json", "--best-of", "3", "--timeout", "3",
                              "-m", RENAME])
    assert code == 124, err
    done = [e for e in events if e["type"] == "candidate_finished"]
    assert sorted(e["candidate"] for e in done) == [1, 2, 3]
    assert {e["verdict"] for e in done} == {"stopped"}
    assert events[-1]["type"] == "summary" and events[-1]["timed_out"] is True
    assert "--timeout ran out" in err and (repo / "app.py").read_text() == PY


def test_stream_json_carries_the_race_as_system_lines(repo: Path) -> None:
    result = CliRunner().invoke(app, ["edit", "app.py", "--output-format", "stream-json",
                                      "--best-of", "2", "-m", RENAME])
    assert result.exit_code == 0, result.stderr
    messages = [parse_message(json.loads(line)) for line in result.stdout.splitlines()]
    assert all(m is not None for m in messages)  # every line one the SDK knows
    subtypes = [m.subtype for m in messages if isinstance(m, SystemMessage)]
    assert subtypes[0] == "init" and subtypes.count("candidate_finished") == 2
    assert "candidate_chosen" in subtypes
    assert isinstance(messages[-1], ResultMessage) and messages[-1].subtype == "success"
    spark = json.loads(result.stdout.splitlines()[-1])["spark"]
    assert spark["exit_code"] == 0 and "grand_total" in spark["diffs"]["app.py"]


def test_judge_deep_breaks_the_tie(repo: Path) -> None:
    code, events, err = _run(["app.py", "--json", "--best-of", "2", "--judge", "deep",
                              "-m", RENAME])
    assert code == 0, err
    [chosen] = [e for e in events if e["type"] == "candidate_chosen"]
    assert "the deep model's pick of those with a 2-line diff: Candidate 1" in chosen["reason"]


def test_a_deep_tiebreak_that_fails_falls_back_to_the_first_finished(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPARK_DEEP_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens
    code, events, err = _run(["app.py", "--json", "--best-of", "2", "--judge", "deep",
                              "-m", RENAME])
    assert code == 0, err
    [chosen] = [e for e in events if e["type"] == "candidate_chosen"]
    assert "the first finished of those with a 2-line diff (the deep tiebreak failed: " \
        in chosen["reason"]
    assert "grand_total" in (repo / "app.py").read_text()


@pytest.mark.parametrize(("args", "said"), [
    (["--judge", "deep"], "--judge judges a race: add --best-of N (2 to 8)"),
    (["--best-of", "2", "--judge", "vote"], "--judge must be evidence or deep, not 'vote'"),
])
def test_bad_judges_are_usage_errors(repo: Path, args: list[str], said: str) -> None:
    code, _, err = _run(["app.py", *args, "-m", RENAME])
    assert (code, err.strip()) == (2, f"spark edit: {said}")
    assert (repo / "app.py").read_text() == PY
