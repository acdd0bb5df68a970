"""Pipe mode carries stdin only: a repo around the cwd adds no map, no files, no cache."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PY = 'def total_price(items):\n    return sum(items)\n\n\nprint(total_price([1, 2]))\n'


def test_pipe_ignores_the_repo_around_it(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    (work / "src" / "user.py").write_text("from app import total_price\n\ntotal_price([])\n")
    before = sorted(p.relative_to(work) for p in work.rglob("*"))
    env = {**os.environ, "NO_COLOR": "1", "SPARK_CONFIG_DIR": str(tmp_path / "config")}
    done = subprocess.run([sys.executable, "-m", "spark_cli", "edit", "--json", "-m",
                           "rename total_price to grand_total", "--provider", "mock"],
                          input=PY.encode(), capture_output=True, cwd=work, env=env, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode() == PY.replace("total_price", "grand_total")
    assert "user.py" not in done.stderr.decode()
    assert sorted(p.relative_to(work) for p in work.rglob("*")) == before  # no .spark/ either
