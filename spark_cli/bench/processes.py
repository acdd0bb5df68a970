"""Spark in its own processes, for every benchmark: the engine started and read, and the
children launched as a user launches them (in a copy of the example repo), with what each cost.

:func:`start_engine` returns an :class:`EngineProcess` once `spark engine serve --port 0`
listens (its CPU, memory and fds read from ``/proc``). ``os.wait4`` reports a child's CPU
with every descendant it waited for, so :func:`wait_child` waits without reaping, reads the
zombie's ``cutime + cstime``, then reaps it: the child alone is the difference (Linux).
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
_DROPPED = ("PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "SPARK_CONFIG_DIR",
            "SPARK_CACHE_DIR", "SPARK_API_KEY", "SPARK_PROVIDER", "SPARK_MODEL",
            "SPARK_BASE_URL", "OPENAI_API_KEY", "CEREBRAS_API_KEY")
"""Not what a user runs with (no bytecode would be cached), or a user's own settings."""


@record
class ChildUsage:
    """What one waited-for child process came to: exit code, CPU, peak memory."""

    exit_code: int
    cpu_s: float
    """User + system CPU, the child and the descendants it waited for (``os.wait4``)."""
    own_cpu_s: float
    """The child process alone; ``cpu_s`` when ``/proc`` could not tell."""
    peak_rss_kb: int
    """``ru_maxrss`` from ``os.wait4`` (KiB): the largest of the child and its descendants."""
    exited_at: float
    """``time.monotonic()`` when the exit was seen."""


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
    """``tmp/repo``: a copy of the demo's examples/repo (in a checkout), else an empty folder
    with one file."""
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
    """User + system CPU of ``pid`` so far (``waited_for``: ``cutime + cstime``, the CPU of
    the descendants it waited for, of an exited, not yet reaped pid); NaN when unreadable."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return float("nan")
    fields = stat.rsplit(b")", 1)[1].split()  # the name may hold spaces and ')'
    first = 13 if waited_for else 11
    return (int(fields[first]) + int(fields[first + 1])) / _TICK


def rss_bytes(pid: int | str = "self", *, peak: bool = False) -> int:
    """Resident memory of ``pid`` now (``VmRSS``; ``peak``: the most so far, ``VmHWM``);
    0 when unreadable."""
    key = "VmHWM:" if peak else "VmRSS:"
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def wait_child(proc: Any) -> ChildUsage:
    """Wait for ``proc`` (a ``subprocess.Popen``) to exit, read its costs, reap it and tell
    ``proc`` its return code."""
    os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
    seen = time.monotonic()
    children = cpu_seconds(proc.pid, waited_for=True)
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    own = cpu if math.isnan(children) else max(0.0, cpu - children)
    return ChildUsage(proc.returncode, cpu, own, usage.ru_maxrss, seen)


def run_piped(argv: list[str], cwd: Path, env: dict[str, str],
              timeout: float = 600.0) -> ChildRun:
    """Run ``argv`` to its end (killed after ``timeout`` s), stdin empty, stdout and stderr
    read by threads as they come (a full pipe never stalls it)."""
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
    """An engine running in its own process, and where to reach it (``with`` stops it)."""

    proc: subprocess.Popen[str]
    ws_url: str
    """``ws://HOST:PORT/v1/responses``."""
    url: str
    """``http://HOST:PORT`` (the OpenAI base URL is ``url + "/v1"``)."""
    token: str

    @property
    def pid(self) -> int:
        return self.proc.pid

    def __enter__(self) -> EngineProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def rss_bytes(self) -> int:
        return rss_bytes(self.pid)

    def peak_rss_bytes(self) -> int:
        return rss_bytes(self.pid, peak=True)

    def open_fds(self) -> int:
        """Open file descriptors now; -1 when unreadable."""
        try:
            return len(os.listdir(f"/proc/{self.pid}/fd"))
        except OSError:
            return -1

    def stop(self) -> None:
        """Terminate (kill after 5 s) and close its pipes."""
        self.proc.terminate()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()


def start_engine(token: str, *flags: str, env: dict[str, str] | None = None,
                 stderr: int | None = subprocess.DEVNULL, timeout: float = 30.0) -> EngineProcess:
    """``spark engine serve --port 0 --token TOKEN FLAGS`` in a child process, once it
    listens. ``stderr`` is where its log goes (``subprocess.PIPE`` to read it after
    :meth:`EngineProcess.stop`). Raises ``RuntimeError`` when no URL line comes."""
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
