"""The bundled engine end to end: a tiny edit with no config, whole process, wall time.

`spark edit hello.py -m "rename greet to welcome"` as a new user runs it: no key, no base
URL, so spark starts its engine in-process. Each repetition restores the file first and
checks the rename landed.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from spark_cli.bench.child_usage import child_env, run_piped, spark_command

HELLO = 'def greet(name):\n    return "hello " + name\n\n\nprint(greet("spark"))\n'
INSTRUCTION = "rename greet to welcome"


def run_bundled(reps: int, workdir: Path) -> dict[str, Any]:
    """Median and minimum wall and CPU of ``reps`` tiny bundled edits (after one warm-up)."""
    (workdir / "config").mkdir(parents=True, exist_ok=True)
    env = child_env(SPARK_CONFIG_DIR=str(workdir / "config"))
    walls: list[float] = []
    cpus: list[float] = []
    for rep in range(reps + 1):
        target = workdir / "hello.py"
        target.write_text(HELLO)
        run = run_piped([*spark_command(), "edit", "hello.py", "-m", INSTRUCTION], workdir, env)
        code = run.usage.exit_code
        if code != 0 or "def welcome(name):" not in target.read_text():
            raise RuntimeError(f"the bundled tiny edit failed (exit {code}): "
                               f"{run.err.strip()[-500:]}")
        if rep:  # the first run warms bytecode and caches
            walls.append(run.usage.exited_at - run.started)
            cpus.append(run.usage.cpu_s)
    return {"wall_s": statistics.median(walls), "wall_min_s": min(walls),
            "cpu_s": statistics.median(cpus), "cpu_min_s": min(cpus), "reps": reps}
