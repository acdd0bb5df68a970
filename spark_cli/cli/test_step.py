"""`spark edit --test`: run the project's tests after the turn (the only way tests run).

The command comes from the settings (``test_command``) or is detected
(``spark_cli.checks.detect``); the run is bounded (``spark_cli.checks.runner``).
The outcome is rendered as one line (plus the output's tail on failure) and
becomes exit code 4 when the tests fail or no test command can be found.
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
    result = asyncio.run(run_tests(command, root))
    passed = getattr(result, "exit_code", 1) == 0
    duration = getattr(result, "duration_s", None)
    took = f" in {duration:.1f} s" if isinstance(duration, int | float) else ""
    shown = command if isinstance(command, str) else " ".join(getattr(command, "argv", command))
    verdict = "passed" if passed else f"FAILED (exit {getattr(result, 'exit_code', '?')})"
    if not passed:
        tail = getattr(result, "tail", "") or getattr(result, "output", "")
        if tail:
            renderer.note(str(tail).rstrip("\n"))
    renderer.line(f"tests {verdict}{took}: {shown}", "green" if passed else "red")
    emit = getattr(renderer, "emit", None)
    if emit is not None:
        emit({"type": "test_result", "command": shown, "passed": passed,
              "exit_code": getattr(result, "exit_code", None), "duration_s": duration})
    return 0 if passed else EXIT_TESTS
