"""What a benchmark child cost, read when it exits: CPU (with and without the processes
it started), peak RSS, and when its exit was seen (Linux).

``os.wait4`` reports the child's user + system time together with that of every
descendant it waited for (a shell it ran, a ``git`` it called). To tell the two
apart, :func:`wait_child` first waits *without reaping* (``waitid`` with
``WNOWAIT``), reads the zombie's ``cutime + cstime`` (its waited-for
descendants, in clock ticks of 10 ms) from ``/proc/PID/stat``, then reaps it
with ``os.wait4``; the child alone is the total less the descendants' part (so
exact for a child that started nothing).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from spark_cli.record import record

_TICK = os.sysconf("SC_CLK_TCK")


@record
class ChildUsage:
    """What one waited-for child process came to: exit code, CPU, peak memory."""

    exit_code: int
    cpu_s: float
    """User + system CPU, the child and the descendants it waited for (``os.wait4``)."""
    own_cpu_s: float
    """User + system CPU of the child process alone (all its threads); ``cpu_s`` when
    ``/proc`` could not tell."""
    peak_rss_kb: int
    """``ru_maxrss`` from ``os.wait4`` (KiB): the largest of the child and its descendants."""
    exited_at: float
    """``time.monotonic()`` when the exit was seen."""


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
