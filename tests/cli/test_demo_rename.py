"""The demo's rename on a copy of examples/repo: the example's own tests still pass after it.

`spark edit src/shop/cart.py -m "rename total_price to cart_total"` names one
file; the context brings tests/test_cart.py (it imports ``total_price``), so
the bundled engine renames it there too.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "repo"


def test_demo_rename_keeps_the_example_tests_green(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo, ignore=shutil.ignore_patterns("__pycache__", ".spark",
                                                                 ".pytest_cache"))
    env = {**os.environ, "NO_COLOR": "1", "SPARK_CONFIG_DIR": str(tmp_path / "config")}
    for key in ("OPENAI_API_KEY", "CEREBRAS_API_KEY", "SPARK_API_KEY"):
        env.pop(key, None)
    done = subprocess.run([sys.executable, "-m", "spark_cli", "edit", "src/shop/cart.py", "-m",
                           "rename total_price to cart_total", "--provider", "mock"],
                          cwd=repo, env=env, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode() + done.stdout.decode()
    test_file = (repo / "tests" / "test_cart.py").read_text()
    assert "total_price" not in test_file and "cart_total" in test_file
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                           cwd=repo, env=env, capture_output=True, timeout=120)
    assert tests.returncode == 0, tests.stdout.decode() + tests.stderr.decode()
