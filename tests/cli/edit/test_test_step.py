"""`spark edit --test`'s report: the lines and the exit code, through the session's /test."""

from __future__ import annotations

import dataclasses
import shlex
import sys
from pathlib import Path
from typing import Any

from spark_cli.cli.edit.test_step import EXIT_TESTS, run_project_tests
from spark_cli.session.config.settings import load_settings


class _Recorder:
    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []
        self.notes: list[str] = []
        self.events: list[dict[str, Any]] = []

    def line(self, text: str, style: str) -> None:
        self.lines.append((text, style))

    def note(self, text: str) -> None:
        self.notes.append(text)

    def emit(self, event: dict[str, Any]) -> None:
        self.events.append(event)


def _settings(tmp_path: Path, command: str | None) -> Any:
    (tmp_path / "config").mkdir(exist_ok=True)
    settings = load_settings(tmp_path, env={"SPARK_CONFIG_DIR": str(tmp_path / "config")})
    return dataclasses.replace(settings, test_command=command)


def test_no_test_command_is_exit_4_with_the_same_message(tmp_path: Path) -> None:
    out = _Recorder()
    assert run_project_tests(tmp_path, _settings(tmp_path, None), out) == EXIT_TESTS
    assert out.lines == [("--test: no test command found (pytest, npm test, cargo test, go test, "
                          "make test); set test_command in .spark/config.toml", "red")]
    assert out.notes == [] and out.events == []


def test_a_failing_run_reports_summary_verdict_and_event(tmp_path: Path) -> None:
    (tmp_path / "t.py").write_text("print('FAILED tests/test_a.py::test_b')\nraise SystemExit(2)\n")
    command = f"{shlex.quote(sys.executable)} t.py"
    out = _Recorder()
    assert run_project_tests(tmp_path, _settings(tmp_path, command), out) == EXIT_TESTS
    assert out.notes[0].startswith(f"running tests: {command} (configured; ")  # how confined
    assert "FAILED tests/test_a.py::test_b" in out.notes[1]
    text, style = out.lines[-1]
    assert text.startswith("tests FAILED (exit 2) in ") and text.endswith(command)
    assert style == "red"
    assert out.events[0]["type"] == "test_result" and out.events[0]["exit_code"] == 2


def test_a_passing_run_is_exit_0(tmp_path: Path) -> None:
    out = _Recorder()
    assert run_project_tests(tmp_path, _settings(tmp_path, "true"), out) == 0
    assert out.lines[-1][0].startswith("tests passed in ") and out.lines[-1][1] == "green"
    assert out.events[0]["passed"] is True
