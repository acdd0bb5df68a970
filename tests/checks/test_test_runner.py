"""The on-request runner: a tiny passing and failing pytest project, bounds, timeout."""

from __future__ import annotations

import sys
from pathlib import Path

from waiting import wait_until

from spark_cli.checks.detect import TestCommand, detect_test_command
from spark_cli.checks.runner import EXIT_NOT_FOUND, EXIT_TIMEOUT, run_tests

PY = sys.executable


def _project(root: Path, body: str) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    (root / "tests" / "test_calc.py").write_text(body)
    return root


def _pytest(root: Path) -> TestCommand:
    detected = detect_test_command(root)
    assert detected is not None and detected.source == "pytest.ini"
    # the interpreter running this suite certainly has pytest
    return TestCommand((PY, "-m", "pytest", "-q"), detected.source)


async def test_passing_project(tmp_path: Path) -> None:
    root = _project(tmp_path, "def test_add():\n    assert 1 + 1 == 2\n")
    result = await run_tests(_pytest(root), root, timeout=60)
    assert result.passed and result.exit_code == 0, result.output
    assert "1 passed" in result.output and result.summary == ""
    assert result.duration_s > 0 and not result.truncated and not result.timed_out


async def test_failing_project_summary_names_the_test(tmp_path: Path) -> None:
    root = _project(tmp_path, "def test_ok():\n    pass\n\n"
                              "def test_total():\n    assert sum([1, 2]) == 4\n")
    result = await run_tests(_pytest(root), root, timeout=60)
    assert not result.passed and result.exit_code == 1
    assert "FAILED tests/test_calc.py::test_total" in result.summary
    assert "1 failed, 1 passed" in result.summary
    assert "failed (exit code 1)" in result.summary
    assert "test_total" in result.tail
    prompt = result.fix_prompt()
    assert "The tests failed" in prompt and "test_total" in prompt


async def test_output_is_bounded(tmp_path: Path) -> None:
    command = TestCommand((PY, "-c", "print('x' * 200_000); print('END')"), "test")
    result = await run_tests(command, tmp_path, keep_bytes=1000)
    assert result.passed and result.truncated
    assert len(result.output) <= 1000 and result.output.rstrip().endswith("END")


async def test_timeout_kills_the_process_group(tmp_path: Path) -> None:
    command = TestCommand((PY, "-c", "import time; print('started', flush=True); "
                                     "time.sleep(60)"), "test")
    result = await run_tests(command, tmp_path, timeout=0.5)
    assert result.timed_out and not result.passed and result.exit_code == EXIT_TIMEOUT
    assert "started" in result.output and "stopped after" in result.output
    assert "did not finish" in result.summary


async def test_missing_program_is_a_result_not_a_crash(tmp_path: Path) -> None:
    command = TestCommand(("spark-no-such-program-xyz",), "test")
    result = await run_tests(command, tmp_path)
    assert result.exit_code == EXIT_NOT_FOUND and not result.passed
    assert "not found" in result.summary


async def test_configured_shell_command(tmp_path: Path) -> None:
    configured = detect_test_command(tmp_path, "echo one && exit 3")
    assert configured is not None
    result = await run_tests(configured, tmp_path)
    assert result.exit_code == 3 and "one" in result.output
    assert result.command == "echo one && exit 3"


async def test_cancel_takes_the_child_down(tmp_path: Path) -> None:
    import asyncio
    import os

    pid_file = tmp_path / "pid"
    code = (f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); "
            "print('up', flush=True); time.sleep(60)")
    task = asyncio.ensure_future(run_tests(TestCommand((PY, "-c", code), "test"), tmp_path))
    await wait_until(lambda: pid_file.exists() and pid_file.read_text(), 20)
    task.cancel()
    async with asyncio.timeout(20):
        try:
            await task
        except asyncio.CancelledError:
            pass
    pid = int(pid_file.read_text())
    try:
        os.kill(pid, 0)
        alive = True
    except ProcessLookupError:
        alive = False
    assert task.cancelled() and not alive


def _writer(*parts: bytes, pause: float = 0.05) -> TestCommand:
    """A program writing ``parts`` to stdout as separate, flushed writes."""
    code = ("import sys, time\n"
            f"for part in {parts!r}:\n"
            "    sys.stdout.buffer.write(part); sys.stdout.buffer.flush()\n"
            f"    time.sleep({pause})\n"
            "sys.exit(1)\n")
    return TestCommand((PY, "-c", code), "test")


async def test_on_output_streams_decoded_chunks_as_they_arrive(tmp_path: Path) -> None:
    chunks: list[str] = []
    command = _writer(b"caf\xc3", b"\xa9 \x1b[3", b"1mred\x1b[0m\n", b"bad \xff byte\n")
    result = await run_tests(command, tmp_path, on_output=chunks.append)
    assert not result.passed and result.exit_code == 1
    assert "".join(chunks) == "café red\nbad \ufffd byte\n" == result.output
    assert len(chunks) >= 3  # streamed, not delivered once at the end
    assert all("\x1b" not in chunk and "\ufffd" not in chunk[:5] for chunk in chunks[:2])


async def test_on_output_gets_everything_while_the_result_keeps_only_the_tail(
        tmp_path: Path) -> None:
    received: list[str] = []
    command = TestCommand((PY, "-c", "print('x' * 500_000); print('END')"), "test")
    result = await run_tests(command, tmp_path, keep_bytes=1000, on_output=received.append)
    assert result.truncated and len(result.output) <= 1000
    assert sum(map(len, received)) == 500_000 + len("\nEND\n")


async def test_on_output_hears_why_a_program_did_not_start_or_was_stopped(
        tmp_path: Path) -> None:
    missing: list[str] = []
    await run_tests(TestCommand(("spark-no-such-program-xyz",), "test"), tmp_path,
                    on_output=missing.append)
    assert "not found" in "".join(missing)
    stopped: list[str] = []
    command = TestCommand((PY, "-c", "import time; print('go', flush=True); time.sleep(60)"),
                          "test")
    result = await run_tests(command, tmp_path, timeout=0.5, on_output=stopped.append)
    assert result.timed_out and "".join(stopped) == "go\n\n[spark: stopped after 0.5 s]\n"


def _alive(pid: int) -> bool:
    """Running (a zombie nobody reaped yet counts as gone)."""
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


async def test_cancel_while_streaming_kills_the_whole_group(tmp_path: Path) -> None:
    import asyncio

    # the test command starts a grandchild; both must go when the run is cancelled
    grandchild = tmp_path / "grandchild"
    code = ("import subprocess, sys, time\n"
            "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
            f"open({str(grandchild)!r}, 'w').write(str(child.pid))\n"
            "for n in range(600):\n"
            "    print(f'line {n}', flush=True); time.sleep(0.05)\n")
    seen: list[str] = []
    first = asyncio.Event()

    def on_output(chunk: str) -> None:
        seen.append(chunk)
        first.set()

    task = asyncio.ensure_future(run_tests(TestCommand((PY, "-c", code), "test"), tmp_path,
                                           on_output=on_output))
    async with asyncio.timeout(20):
        await first.wait()
    task.cancel()
    async with asyncio.timeout(20):
        try:
            await task
        except asyncio.CancelledError:
            pass
    assert task.cancelled() and seen[0].startswith("line 0")
    pid = int(grandchild.read_text())
    await wait_until(lambda: not _alive(pid), 10)  # the grandchild got SIGTERM with its group


async def test_a_callback_that_raises_stops_the_run(tmp_path: Path) -> None:
    import pytest

    pid_file = tmp_path / "pid"
    code = (f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); "
            "print('up', flush=True); time.sleep(60)")

    def broken(chunk: str) -> None:
        raise RuntimeError("the transcript is gone")

    with pytest.raises(RuntimeError, match="transcript is gone"):
        await run_tests(TestCommand((PY, "-c", code), "test"), tmp_path, on_output=broken)
    assert not _alive(int(pid_file.read_text()))
