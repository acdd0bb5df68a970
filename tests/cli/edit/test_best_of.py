"""`spark edit --best-of N`: events, exit codes, bad input, a check that hangs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from trusting import write_project
from typer.testing import CliRunner

from spark_cli.cli.main import app

PY = "def total_price(items):\n    return sum(items)\n"
RENAME = "rename total_price to grand_total"


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
