"""`spark edit` on the bundled engine forked into a child process (a one-shot with one thread).

Real processes: the edit lands as on the thread engine, a pipeline ends, the child
never holds the caller's stdin/stdout/stderr and is gone once the run is, Ctrl-C
included; a child that cannot start is named in the run's error; and a process
with another thread keeps the engine on a thread.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spark_cli.cli import wiring
from spark_cli.cli.main import app
from spark_cli.engine.serving.engine_fork import can_fork

pytestmark = pytest.mark.skipif(not can_fork(), reason="forks only where it is safe")

PY = 'def total_price(items):\n    return sum(items)\n\n\nprint(total_price([1, 2]))\n'
RENAME = "rename total_price to grand_total"
CALLERS = 400


@pytest.fixture
def work(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "app.py").write_text(PY)
    config = tmp_path / "config"
    config.mkdir()
    env = {key: value for key, value in os.environ.items()
           if key not in ("OPENAI_API_KEY", "CEREBRAS_API_KEY", "SPARK_API_KEY")}
    env |= {"SPARK_CONFIG_DIR": str(config), "NO_COLOR": "1"}
    return repo, env


def _spark(*args: str) -> list[str]:
    return [sys.executable, "-m", "spark_cli", "edit", *args]


def _in(cwd: Path) -> list[int]:
    """The live processes (not zombies) working in ``cwd``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink(f"/proc/{pid}/cwd") == str(cwd):
                found.append(int(pid))
        except OSError:  # gone, a zombie, or not ours to read
            pass
    return found


def _none_left_in(cwd: Path, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while (left := _in(cwd)) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not left, f"still running in {cwd}: {left}"


def test_a_pipeline_ends_with_the_edit_and_leaves_no_engine(work: tuple[Path, dict[str, str]]):
    repo, env = work
    line = f"cat app.py | {shlex.join(_spark('-m', RENAME))} > out.py"
    done = subprocess.run(line, shell=True, cwd=repo, env=env, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert (repo / "out.py").read_text() == PY.replace("total_price", "grand_total")
    assert "+def grand_total(items):" in done.stderr
    _none_left_in(repo)


def test_the_edit_and_its_output_are_those_of_the_thread_engine(
    work: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch
):
    """The same run in a process (the engine forked) and in-process with another thread
    running (the engine on a thread, never forked): the same events, the same file."""
    repo, env = work
    done = subprocess.run(_spark("app.py", "--json", "-m", RENAME), cwd=repo, env=env,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    forked_text = (repo / "app.py").read_text()
    assert "def grand_total(items):" in forked_text
    _none_left_in(repo)

    (repo / "app.py").write_text(PY)
    monkeypatch.chdir(repo)
    for key in ("SPARK_CONFIG_DIR", "NO_COLOR"):
        monkeypatch.setenv(key, env[key])

    def no_fork() -> int:
        raise AssertionError("forked with another thread running")

    monkeypatch.setattr(os, "fork", no_fork)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        result = CliRunner().invoke(app, ["edit", "app.py", "--json", "-m", RENAME])
    finally:
        stop.set()
        other.join()
    assert result.exit_code == 0, result.output
    assert (repo / "app.py").read_text() == forked_text

    def shape(out: str) -> tuple[list[tuple[str, object]], str]:
        """The events but prose (diffs, paths) in order, and the prose (its deltas' split
        follows the pacing)."""
        events = [json.loads(line) for line in out.splitlines()]
        prose = "".join(e["text"] for e in events if e["type"] == "prose_delta")
        return [(e["type"], e.get("diff") or e.get("path")) for e in events
                if e["type"] != "prose_delta"], prose

    assert shape(result.stdout) == shape(done.stdout)


def test_a_child_that_cannot_start_is_named_in_the_error(
    work: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch
):
    """In-process (one thread: it forks); the child's configuration names no brain there is."""
    from spark_cli.engine.core.config import EngineConfig

    repo, env = work
    monkeypatch.chdir(repo)
    monkeypatch.setenv("SPARK_CONFIG_DIR", env["SPARK_CONFIG_DIR"])
    monkeypatch.setattr(wiring, "_bundled_config", lambda token: EngineConfig(
        host=wiring.BUNDLED_HOST, port=0, token=token, brain="no-such-brain"))
    result = CliRunner().invoke(app, ["edit", "app.py", "--json", "-m", RENAME])
    assert result.exit_code == 3, result.output
    failed = [e for e in map(json.loads, result.stdout.splitlines()) if e["type"] == "turn_failed"]
    assert len(failed) == 1, result.stdout
    message = failed[0]["message"]
    assert message.startswith("could not start or reach the engine: the bundled engine could not "
                              "start: ValueError: "), message
    assert "no-such-brain" in message
    assert (repo / "app.py").read_text() == PY


def _calls(number: int) -> str:
    return "".join(f"def caller_{i}(x):\n    y = x + {i}\n    return total_price([y, {i}])\n\n\n"
                   for i in range(number))


async def test_ctrl_c_mid_turn_ends_the_turn_and_the_engine_goes(
    work: tuple[Path, dict[str, str]]
):
    repo, env = work
    (repo / "app.py").write_text(PY + _calls(CALLERS))  # seconds of edits on the bundled engine
    proc = await asyncio.create_subprocess_exec(
        *_spark("app.py", "--json", "-m", RENAME), cwd=repo, env=env,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    assert proc.stdout is not None
    lines: list[str] = []
    async with asyncio.timeout(60):
        while '"edit_applied"' not in (line := (await proc.stdout.readline()).decode()):
            assert line, "the run ended before it could be interrupted"
            lines.append(line)
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        assert len(children) == 1, children
        child = int(children[0])
        for fd in (0, 1, 2):  # never the caller's pipes: a pipeline never waits on it
            assert os.readlink(f"/proc/{child}/fd/{fd}") == os.devnull
        os.kill(child, signal.SIGINT)  # a terminal's Ctrl-C reaches it too: ignored
        await asyncio.sleep(0.2)
        assert Path(f"/proc/{child}/stat").read_text().split(") ")[1][0] != "Z"
        proc.send_signal(signal.SIGINT)
        rest, err = await proc.communicate()
    assert proc.returncode == 130, err.decode()
    events = [json.loads(line) for line in "".join([*lines, line, rest.decode()]).splitlines()]
    completed = next(event for event in events if event["type"] == "turn_completed")
    assert (completed["status"], completed["reason"]) == ("cancelled", "interrupted")
    assert events[-1]["type"] == "summary" and events[-1]["exit_code"] == 130
    _none_left_in(repo)
