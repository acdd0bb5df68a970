"""Tests on request (`/test [args]`, `/fix`, `spark edit --test`): which command, with the
user's extra arguments, run and streamed.

`run_requested_tests` takes the configured ``test_command`` or detects one
(`spark_cli.checks.detect`), appends the extra arguments, runs it with the bounded runner
(`spark_cli.checks.runner`) and returns a `TestRunResult`, or a `NoTestCommand` saying why
nothing ran. Extra arguments are split with shlex (quotes work as in a shell); a detected
command gets them as separate argv entries, a configured command (a shell line) gets them
shell-quoted at its end, so ``/test "-k a b; rm x"`` can never run a second command.
Nothing here runs a test unless called: a turn never calls it.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from spark_cli.checks.detect import TestCommand, detect_test_command
from spark_cli.checks.runner import DEFAULT_TIMEOUT, TestResult, run_tests
from spark_cli.record import record
from spark_cli.session.config.settings import Settings

TRIED = ("pytest (a [tool.pytest.ini_options] in pyproject.toml, pytest.ini, setup.cfg or "
         "tox.ini section, or test_*.py under tests/)", "npm test (package.json scripts.test)",
         "cargo test (Cargo.toml)", "go test ./... (go.mod)", "make test (a Makefile test target)")
NOT_FOUND = ("no test command found (pytest, npm test, cargo test, go test, make test); "
             "set test_command in .spark/config.toml")
"""The one-line message `spark edit --test` prints (after ``--test: ``)."""


@record
class NoTestCommand:
    """Nothing ran: no command was configured or detected, or the arguments cannot be split."""

    __test__ = False  # not a pytest test class

    message: str
    """One line for the transcript."""
    tried: tuple[str, ...] = ()
    """What detection looked for (empty when the arguments were the problem)."""
    reason: Literal["not_found", "bad_args"] = "not_found"

    def details(self) -> str:
        """The message plus one line per thing looked for."""
        return "\n".join([self.message, *(f"  - {item}" for item in self.tried)])


@record
class TestRunResult:
    """A finished (failed, passed, timed out, or not startable) run of the test command."""

    __test__ = False

    command: TestCommand
    """What ran, the extra arguments included; ``command.source`` says where it came from."""
    result: TestResult

    @property
    def passed(self) -> bool:
        return self.result.passed

    @property
    def verdict(self) -> str:
        """``passed``, ``timed out`` or ``FAILED (exit N)``."""
        if self.result.passed:
            return "passed"
        return "timed out" if self.result.timed_out else f"FAILED (exit {self.result.exit_code})"

    @property
    def summary(self) -> str:
        return self.result.summary

    def fix_prompt(self) -> str:
        """What `/fix` sends to the model."""
        return self.result.fix_prompt()


def resolve_test_command(root: Path, settings: Settings,
                         args: str = "") -> TestCommand | NoTestCommand:
    """The command `/test args` would run (nothing is executed)."""
    try:
        extra = shlex.split(args)
    except ValueError as exc:
        return NoTestCommand(f"/test: cannot split the arguments {args!r}: {exc}",
                             reason="bad_args")
    command = detect_test_command(root, settings.test_command)
    if command is None:
        return NoTestCommand(NOT_FOUND, TRIED)
    if not extra:
        return command
    if command.shell:
        line = f"{command.argv[0]} {shlex.join(extra)}"
        return TestCommand((line,), command.source, shell=True)
    return TestCommand((*command.argv, *extra), command.source)


async def run_requested_tests(
        root: Path, settings: Settings, args: str = "", *,
        on_output: Callable[[str], None] | None = None,
        on_start: Callable[[TestCommand], None] | None = None,
        timeout: float = DEFAULT_TIMEOUT) -> TestRunResult | NoTestCommand:
    """Resolve and run the test command; ``on_start`` hears the command just before it starts,
    ``on_output`` gets the output as it arrives. Cancelling the caller kills the whole process
    group (the runner's guarantee); a failing or missing program is a result, not an error."""
    command = resolve_test_command(root, settings, args)
    if isinstance(command, NoTestCommand):
        return command
    if on_start is not None:
        on_start(command)
    result = await run_tests(command, root, timeout=timeout, on_output=on_output,
                             keep_env=settings.command_env)
    return TestRunResult(command, result)
