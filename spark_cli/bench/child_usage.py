"""Benchmark children: how spark is launched, in what environment, and what a child cost.

``os.wait4`` reports a child's CPU together with every descendant it waited for (a shell,
a ``git``). :func:`wait_child` first waits without reaping (``WNOWAIT``), reads the zombie's
``cutime + cstime`` from ``/proc/PID/stat``, then reaps it: the child alone is the total
less the descendants' part (Linux).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
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


def spark_command() -> list[str]:
    """How to launch spark as a user would: the console script beside this Python."""
    script = Path(sys.executable).with_name("spark")
    if script.exists():
        return [str(script)]
    found = shutil.which("spark")
    return [found] if found else [sys.executable, "-m", "spark_cli"]


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a running process so far; NaN when unreadable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / _TICK


def children_cpu_of_zombie(pid: int) -> float | None:
    """``cutime + cstime`` (seconds: the CPU of the descendants it waited for) of an exited,
    not yet reaped ``pid``; None if unreadable."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = stat.rsplit(b")", 1)[1].split()  # the name may hold spaces and ')'
    return (int(fields[13]) + int(fields[14])) / _TICK


def wait_child(proc: Any) -> ChildUsage:
    """Wait for ``proc`` (a ``subprocess.Popen``) to exit, read its costs, reap it and tell
    ``proc`` its return code."""
    os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
    seen = time.monotonic()
    children = children_cpu_of_zombie(proc.pid)
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    own = cpu if children is None else max(0.0, cpu - children)
    return ChildUsage(proc.returncode, cpu, own, usage.ru_maxrss, seen)


def run_piped(argv: list[str], cwd: Path, env: dict[str, str]) -> ChildRun:
    """Run ``argv`` to its end, stdin empty, stdout and stderr read by threads as they come
    (a full pipe never stalls it)."""
    started = time.monotonic()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out: list[str] = []
    err: list[str] = []
    readers = [threading.Thread(target=into.extend, args=(pipe,), daemon=True)
               for pipe, into in ((proc.stdout, out), (proc.stderr, err))]
    for reader in readers:
        reader.start()
    usage = wait_child(proc)
    for reader in readers:
        reader.join(10)
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()
    return ChildRun(started, usage, "".join(out), "".join(err))
