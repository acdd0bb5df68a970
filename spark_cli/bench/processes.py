"""Spark in its own processes, for every bench: the engine started, children launched as a
user launches them (in a copy of the example repo), and what each cost (``/proc``, Linux).
"""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spark_cli.record import record

_TICK = os.sysconf("SC_CLK_TCK")
# not what a user runs with (no bytecode would be cached), or a user's own settings
_DROPPED = ("PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "SPARK_CONFIG_DIR",
            "SPARK_CACHE_DIR", "SPARK_API_KEY", "SPARK_PROVIDER", "SPARK_MODEL",
            "SPARK_BASE_URL", "OPENAI_API_KEY", "CEREBRAS_API_KEY")


@record
class ChildUsage:
    """A waited-for child's exit code, CPU with the descendants it waited for and alone (or
    ``cpu_s`` when ``/proc`` could not tell), peak RSS in KiB, ``time.monotonic()`` of its exit."""

    exit_code: int
    cpu_s: float
    own_cpu_s: float
    peak_rss_kb: int
    exited_at: float


@record
class ChildRun:
    """A child run to its end: when it started (``time.monotonic()``), its cost, its output."""

    started: float
    usage: ChildUsage
    out: str
    err: str


def child_env(**extra: str) -> dict[str, str]:
    """The children's environment: a user's shell without spark's settings, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED}
    env.update(extra)
    return env


def example_repo(tmp: Path) -> Path:
    """``tmp/repo``: a copy of examples/repo (in a checkout), else a folder with one file."""
    example = Path(__file__).resolve().parents[2] / "examples" / "repo"
    work = tmp / "repo"
    if example.is_dir():
        shutil.copytree(example, work, ignore=shutil.ignore_patterns(".spark", "__pycache__"))
    else:
        work.mkdir()
        (work / "README.md").write_text("bench\n")
    return work


def spark_command() -> list[str]:
    """How to launch spark as a user would: the console script beside this Python."""
    script = Path(sys.executable).with_name("spark")
    if script.exists():
        return [str(script)]
    found = shutil.which("spark")
    return [found] if found else [sys.executable, "-m", "spark_cli"]


def cpu_seconds(pid: int, *, waited_for: bool = False) -> float:
    """CPU of ``pid`` so far (``waited_for``: of the descendants it reaped); NaN if unreadable."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return float("nan")
    fields = stat.rsplit(b")", 1)[1].split()  # the name may hold spaces and ')'
    first = 13 if waited_for else 11
    return (int(fields[first]) + int(fields[first + 1])) / _TICK


def rss_bytes(pid: int | str = "self", *, peak: bool = False) -> int:
    """Resident memory of ``pid`` now (``peak``: the most so far); 0 when unreadable."""
    key = "VmHWM:" if peak else "VmRSS:"
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def wait_child(proc: Any) -> ChildUsage:
    """Wait for ``proc`` to exit and reap it: ``os.wait4`` counts the descendants it waited for,
    so their CPU is read from the zombie first and the child alone is the difference."""
    os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
    seen = time.monotonic()
    children = cpu_seconds(proc.pid, waited_for=True)
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    own = cpu if math.isnan(children) else max(0.0, cpu - children)
    return ChildUsage(proc.returncode, cpu, own, usage.ru_maxrss, seen)


def terminate(proc: subprocess.Popen[Any]) -> None:
    """Terminate ``proc`` and wait; kill it after 5 s."""
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def run_piped(argv: list[str], cwd: Path, env: dict[str, str],
              timeout: float = 600.0) -> ChildRun:
    """Run ``argv`` to its end (or ``timeout``), its pipes read by threads as output comes."""
    started = time.monotonic()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out: list[str] = []
    err: list[str] = []
    readers = [threading.Thread(target=into.extend, args=(pipe,), daemon=True)
               for pipe, into in ((proc.stdout, out), (proc.stderr, err))]
    for reader in readers:
        reader.start()
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    usage = wait_child(proc)
    timer.cancel()
    for reader in readers:
        reader.join(10)
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()
    return ChildRun(started, usage, "".join(out), "".join(err))


_URLS = re.compile(r"(ws://\S+/v1/responses) \((http://\S+?)\)")


@dataclass
class EngineProcess:
    """An engine in its own process; ``url`` is ``http://HOST:PORT`` (``with`` stops it)."""

    proc: subprocess.Popen[str]
    ws_url: str
    url: str
    token: str

    @property
    def pid(self) -> int:
        return self.proc.pid

    def __enter__(self) -> EngineProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def open_fds(self) -> int:
        """Open file descriptors now; -1 when unreadable."""
        try:
            return len(os.listdir(f"/proc/{self.pid}/fd"))
        except OSError:
            return -1

    def stop(self) -> None:
        """Terminate (kill after 5 s) and close its pipes."""
        terminate(self.proc)
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()


def start_engine(token: str, *flags: str, env: dict[str, str] | None = None,
                 stderr: int | None = subprocess.DEVNULL, timeout: float = 30.0) -> EngineProcess:
    """``spark engine serve --port 0`` once it listens; ``RuntimeError`` if no URL line comes."""
    argv = [*spark_command(), "engine", "serve", "--port", "0", "--token", token, *flags]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=stderr, text=True, env=env)
    found: list[tuple[str, str]] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            match = _URLS.search(line)
            if match:
                found.append((match.group(1), match.group(2)))
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout)
    if not found:
        proc.kill()
        _out, err = proc.communicate(timeout=5)
        raise RuntimeError(f"the engine did not print its URL within {timeout:g} s: "
                           + " ".join(argv) + (f": {err.strip()[-500:]}" if err else ""))
    ws_url, url = found[0]
    return EngineProcess(proc, ws_url, url, token)
