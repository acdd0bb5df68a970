"""The bundled engine end to end: a tiny edit with no config, whole process, wall time.

`spark edit hello.py -m "rename greet to welcome"` as a new user runs it: no
key, no base URL, so spark starts its engine in-process, edits the file and
exits. Each repetition restores the file first and checks the rename landed.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HELLO = 'def greet(name):\n    return "hello " + name\n\n\nprint(greet("spark"))\n'
INSTRUCTION = "rename greet to welcome"


def run_bundled(reps: int, workdir: Path, spark: list[str],
                env_for: Callable[..., dict[str, str]]) -> dict[str, Any]:
    """Median and minimum wall and CPU of ``reps`` tiny bundled edits (after one warm-up)."""
    workdir.mkdir(parents=True, exist_ok=True)
    config = workdir / "config"
    config.mkdir(exist_ok=True)
    env = env_for(SPARK_CONFIG_DIR=str(config))
    walls: list[float] = []
    cpus: list[float] = []
    for rep in range(reps + 1):
        target = workdir / "hello.py"
        target.write_text(HELLO)
        started = time.monotonic()
        proc = subprocess.Popen([*spark, "edit", "hello.py", "-m", INSTRUCTION], cwd=workdir,
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - started
        err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        if proc.stderr:
            proc.stderr.close()
        code = proc.returncode = os.waitstatus_to_exitcode(status)  # reaped: tell Popen
        if code != 0 or "def welcome(name):" not in target.read_text():
            raise RuntimeError(f"the bundled tiny edit failed (exit {code}): {err.strip()[-500:]}")
        if rep:  # the first run warms bytecode and caches
            walls.append(wall)
            cpus.append(usage.ru_utime + usage.ru_stime)
    return {"wall_s": statistics.median(walls), "wall_min_s": min(walls),
            "cpu_s": statistics.median(cpus), "cpu_min_s": min(cpus), "reps": reps}
