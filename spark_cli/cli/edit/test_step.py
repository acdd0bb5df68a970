"""`spark edit --test`: run the project's tests after the turn, as the TUI's `/test`, shown as
one line (and a failure's summary); exit 4 when they fail or no test command is found."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from spark_cli.cli.edit.turn_result import EXIT_TESTS
from spark_cli.session.actions.test_runs import NoTestCommand, run_requested_tests


def run_project_tests(root: Path, settings: Any, renderer: Any) -> int:
    """Detect, run and report the tests; 0 when they pass, ``EXIT_TESTS`` otherwise."""
    def started(command: Any, where: str) -> None:
        renderer.note(f"running tests: {command.display} ({command.source}; {where})")

    outcome = asyncio.run(run_requested_tests(root, settings, on_start=started))
    if isinstance(outcome, NoTestCommand):
        renderer.line(f"--test: {outcome.message}", "red")  # NOT_FOUND, or why it was refused
        return EXIT_TESTS
    result = outcome.result
    if not result.passed:
        renderer.note(result.summary)
        if result.tail:
            renderer.note(result.tail)
    renderer.line(f"tests {outcome.verdict} in {result.duration_s:.1f} s: {result.command}",
                  "green" if result.passed else "red")
    emit = getattr(renderer, "emit", None)
    if emit is not None:
        emit({"type": "test_result", "command": result.command, "passed": result.passed,
              "exit_code": result.exit_code, "timed_out": result.timed_out,
              "duration_s": result.duration_s, "summary": result.summary})
    return 0 if result.passed else EXIT_TESTS
