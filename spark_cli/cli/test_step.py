"""`spark edit --test`: run the project's tests after the turn (the only way tests run).

The command comes from the settings (``test_command``) or is detected
(``spark_cli.checks.detect``); the run is bounded (``spark_cli.checks.runner``).
The outcome is rendered as one line (plus a short failure summary and the
output's tail when it failed) and becomes exit code 4 when the tests fail or no
test command can be found.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

EXIT_TESTS = 4


def run_project_tests(root: Path, settings: Any, renderer: Any) -> int:
    """Detect, run and report the tests; 0 when they pass, ``EXIT_TESTS`` otherwise."""
    import asyncio

    from spark_cli.checks.detect import detect_test_command
    from spark_cli.checks.runner import run_tests

    command = detect_test_command(root, getattr(settings, "test_command", None))
    if command is None:
        renderer.line("--test: no test command found (pytest, npm test, cargo test, go test, "
                      "make test); set test_command in .spark/config.toml", "red")
        return EXIT_TESTS
    renderer.note(f"running tests: {command.display} ({command.source})")
    result = asyncio.run(run_tests(command, root))
    if not result.passed:
        renderer.note(result.summary)
        if result.tail:
            renderer.note(result.tail)
    verdict = "passed" if result.passed else (
        "timed out" if result.timed_out else f"FAILED (exit {result.exit_code})")
    renderer.line(f"tests {verdict} in {result.duration_s:.1f} s: {result.command}",
                  "green" if result.passed else "red")
    emit = getattr(renderer, "emit", None)
    if emit is not None:
        emit({"type": "test_result", "command": result.command, "passed": result.passed,
              "exit_code": result.exit_code, "timed_out": result.timed_out,
              "duration_s": result.duration_s, "summary": result.summary})
    return 0 if result.passed else EXIT_TESTS
