"""A child's costs at exit: its own CPU told apart from the children it waited for."""

from __future__ import annotations

import math
import subprocess
import sys

from spark_cli.bench.processes import cpu_seconds, wait_child

_SPIN = "import time\nend = time.process_time() + {s}\nwhile time.process_time() < end: pass\n"


def test_own_cpu_leaves_out_a_grandchild_the_child_waited_for():
    # the child spins 0.1 s itself and waits for a grandchild that spins 0.4 s
    code = (_SPIN.format(s=0.1) + "import subprocess, sys\n"
            f"subprocess.run([sys.executable, '-c', {_SPIN.format(s=0.4)!r}], check=True)\n"
            "raise SystemExit(3)\n")
    proc = subprocess.Popen([sys.executable, "-c", code])
    usage = wait_child(proc)
    assert usage.exit_code == 3 and proc.returncode == 3
    assert usage.cpu_s >= 0.5
    assert 0.1 <= usage.own_cpu_s <= usage.cpu_s - 0.35
    assert usage.peak_rss_kb > 1000


def test_a_child_that_started_nothing_costs_the_same_alone_and_whole():
    proc = subprocess.Popen([sys.executable, "-c", _SPIN.format(s=0.05)])
    usage = wait_child(proc)
    assert usage.own_cpu_s == usage.cpu_s >= 0.05


def test_a_pid_that_is_gone_has_no_figure():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    assert math.isnan(cpu_seconds(proc.pid, waited_for=True))
