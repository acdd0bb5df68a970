"""Tests on request (`/test [args]`, `/fix`, `spark edit --test`), as the orchestrator allows.

Extra arguments are shell-quoted onto a configured line, so ``/test "-k a; rm x"`` never runs a
second command; the run is ``run_command``'s (runner, environment, sandbox).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from spark_cli.checks.detect import TestCommand, detect_test_command
from spark_cli.checks.runner import DEFAULT_TIMEOUT, TestResult, run_tests
from spark_cli.record import record
from spark_cli.session.actions.orchestrator import Action, Orchestrator
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
    reason: Literal["not_found", "bad_args", "refused"] = "not_found"

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
    where: str = ""
    """``sandboxed``, or ``not sandboxed: <the fix>``."""

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
        on_start: Callable[[TestCommand, str], None] | None = None,
        timeout: float = DEFAULT_TIMEOUT) -> TestRunResult | NoTestCommand:
    """Resolve and run the test command (a failing or missing program is a result, not an error)."""
    command = resolve_test_command(root, settings, args)
    if isinstance(command, NoTestCommand):
        return command
    policy = Orchestrator(root, settings)
    cleared = await policy.clear(Action("test", command.display))
    if cleared is None or cleared.verdict != "run":  # (never None: a test is never asked)
        return NoTestCommand(f"tests: {cleared and cleared.reason}", reason="refused")
    if on_start is not None:
        on_start(command, cleared.where)
    env, masker = policy.environment()
    result = await run_tests(command, root, timeout=timeout, on_output=on_output,
                             sandbox=cleared.sandbox, env=env, masker=masker,
                             keep_env=settings.command_env,
                             deny_read=settings.sandbox_deny_read)
    return TestRunResult(command, result, cleared.where)
