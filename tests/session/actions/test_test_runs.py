"""`/test [args]`: the configured or detected command, extra arguments, streaming, cancel."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import holds

from spark_cli.checks.detect import TestCommand
from spark_cli.checks.sandbox import Sandbox, find_sandbox
from spark_cli.session.actions.orchestrator import Orchestrator
from spark_cli.session.actions.test_runs import (
    NOT_FOUND,
    NoTestCommand,
    TestRunResult,
    resolve_test_command,
    run_requested_tests,
)
from spark_cli.session.config.settings import Settings, load_settings
from tests.session.actions.test_commands import _needs_sandbox

PY = sys.executable
_SCRIPT = """
import sys
print("collected", len(sys.argv) - 1, "arguments:", sys.argv[1:], flush=True)
print("FAILED tests/test_calc.py::test_total", flush=True)
sys.exit(1)
"""


def _settings(tmp_path: Path, test_command: str | None) -> Settings:
    (tmp_path / "config").mkdir(exist_ok=True)
    settings = load_settings(tmp_path, env={"SPARK_CONFIG_DIR": str(tmp_path / "config")})
    return dataclasses.replace(settings, test_command=test_command)


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "check.py").write_text(_SCRIPT)
    return root


async def test_a_configured_command_runs_streams_and_fails(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    settings = _settings(tmp_path, f"{shlex.quote(PY)} check.py")
    chunks: list[str] = []
    started: list[TestCommand] = []
    where: list[str] = []
    outcome = await run_requested_tests(root, settings, on_output=chunks.append,
                                        on_start=lambda c, w: (started.append(c), where.append(w)))
    assert isinstance(outcome, TestRunResult)
    assert not outcome.passed and outcome.verdict == "FAILED (exit 1)"
    assert started == [outcome.command] and outcome.command.source == "configured"
    assert "collected 0 arguments" in "".join(chunks)
    assert "FAILED tests/test_calc.py::test_total" in outcome.summary
    assert "test_total" in outcome.fix_prompt()


async def test_extra_arguments_reach_a_shell_command_as_arguments_only(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    settings = _settings(tmp_path, f"{shlex.quote(PY)} check.py")
    outcome = await run_requested_tests(root, settings, "-k 'total; touch pwned' $HOME")
    assert isinstance(outcome, TestRunResult)
    assert "['-k', 'total; touch pwned', '$HOME']" in outcome.result.output
    assert not (root / "pwned").exists()


async def test_extra_arguments_extend_a_detected_command(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    (root / "tests").mkdir()
    (root / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    (root / "tests" / "test_calc.py").write_text(
        "def test_ok():\n    pass\n\ndef test_total():\n    assert sum([1, 2]) == 4\n")
    (root / ".venv" / "bin").mkdir(parents=True)  # the project's own interpreter: ours
    (root / ".venv" / "bin" / "python").symlink_to(PY)
    settings = _settings(tmp_path, None)
    command = resolve_test_command(root, settings, "-k ok -q")
    assert isinstance(command, TestCommand) and command.source == "pytest.ini"
    assert command.argv == (str(root / ".venv/bin/python"), "-m", "pytest", "-k", "ok", "-q")
    outcome = await run_requested_tests(root, settings, "-k ok -q")
    assert isinstance(outcome, TestRunResult) and outcome.passed, getattr(outcome, "result", "")
    assert "1 passed, 1 deselected" in outcome.result.output
    failing = await run_requested_tests(root, settings, "-q")
    assert isinstance(failing, TestRunResult) and not failing.passed


async def test_no_test_command_says_what_was_tried(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    ran: list[TestCommand] = []
    outcome = await run_requested_tests(root, _settings(tmp_path, None),
                                        on_start=lambda c, w: ran.append(c))
    assert isinstance(outcome, NoTestCommand) and outcome.reason == "not_found"
    assert outcome.message == NOT_FOUND and ran == []
    details = outcome.details()
    for what in ("pytest", "npm test", "cargo test", "go test", "make test"):
        assert what in details


async def test_unsplittable_arguments_run_nothing(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    outcome = await run_requested_tests(root, _settings(tmp_path, "touch ran"), "-k 'open")
    assert isinstance(outcome, NoTestCommand) and outcome.reason == "bad_args"
    assert "cannot split" in outcome.message and "closing quotation" in outcome.message
    assert not (root / "ran").exists()


async def test_cancel_mid_run_stops_the_tests(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    (root / "slow.py").write_text(
        "import time\n"
        "for n in range(600):\n    print(f'test {n} ok', flush=True); time.sleep(0.05)\n")
    script = str(root / "slow.py")  # unique: pgrep below sees every process on the machine
    settings = _settings(tmp_path, f"exec {shlex.quote(PY)} {shlex.quote(script)}")
    chunks: list[str] = []
    seen = asyncio.Event()

    def on_output(chunk: str) -> None:
        chunks.append(chunk)
        seen.set()

    task = asyncio.ensure_future(run_requested_tests(root, settings, on_output=on_output))
    async with asyncio.timeout(20):
        await seen.wait()
    task.cancel()
    async with asyncio.timeout(20):
        try:
            await task
        except asyncio.CancelledError:
            pass
    assert task.cancelled() and chunks[0].startswith("test 0 ok")
    left = subprocess.run(["pgrep", "-f", script], capture_output=True, text=True)
    assert left.stdout == "", "the tests outlived their cancel"  # (a zombie has no cmdline)
    count = len(chunks)
    await holds(lambda: len(chunks) == count, 0.2, "nothing streams after the cancel")


async def test_tests_run_in_the_sandbox_with_the_commands_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _needs_sandbox()
    key = "sk-test-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    root = _repo(tmp_path)
    home = Path.home() / f"spark-test-run-{os.getpid()}"  # read-only in the sandbox
    (root / "key.txt").write_text(key + "\n")
    settings = _settings(tmp_path, f"env; touch {shlex.quote(str(home))}; "
                                   "echo key=$OPENAI_API_KEY; cat key.txt")
    where: list[str] = []
    outcome = await run_requested_tests(root, settings, on_start=lambda c, w: where.append(w))
    assert isinstance(outcome, TestRunResult) and where == ["sandboxed"] == [outcome.where]
    assert not home.exists() and "Read-only file system" in outcome.result.output
    assert "key=\n[secret]" in outcome.result.output and key not in outcome.result.output
    sandbox = find_sandbox()
    assert isinstance(sandbox, Sandbox)
    command = await Orchestrator(root, settings).run_line(
        "env", sandbox, timeout=30, head_bytes=0, tail_bytes=100_000)
    assert _names(outcome.result.output) == _names(command.tail)  # one environment for both


def _names(env_output: str) -> set[str]:
    """The variables ``env`` printed (``_``, ``SHLVL``, ``PWD`` depend on the shell's run)."""
    return {line.split("=", 1)[0] for line in env_output.splitlines()
            if "=" in line and line[:1].isalpha() and line.split("=", 1)[0].isupper()} - {
        "SHLVL", "PWD", "OLDPWD"}
