"""`spark bench best-of`: a task set whose tests fail until the task is done, and one task
raced through the bench on a real engine (its check run in the candidate's tree)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from spark_cli.bench import best_of_bench as bench
from spark_cli.engine.core.config import EngineConfig
from spark_cli.engine.serving.engine_thread import run_engine_in_thread


@pytest.mark.parametrize("kind", ["generated", "examples"])
def test_every_tasks_test_fails_before_the_task_is_done(tmp_path: Path, kind: str) -> None:
    tasks = bench.tasks()
    assert len(tasks) >= 20
    mine = [t for t in tasks if t[0] == kind]
    root = bench._repo(tmp_path, mine[0], 4)
    shutil.rmtree(root / "tests")
    (root / "tests").mkdir()
    for number, task in enumerate(mine):
        (root / "tests" / f"test_task_{number}.py").write_text(task[3])
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests"], cwd=root, capture_output=True, text=True, timeout=300)
    assert f"{len(mine)} failed" in done.stdout, done.stdout[-2000:]


async def test_a_bench_race_passes_its_check_on_an_engine_that_never_slips() -> None:
    async with run_engine_in_thread(EngineConfig(port=0, token="t")) as engine:
        passed, wall, cpu = await bench._one(engine.url, "t", bench.tasks()[0], 2, 1, 4)
    assert passed and wall > 0 and cpu > 0
