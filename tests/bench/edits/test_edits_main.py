"""`python -m spark_cli.bench.edits.edits N` (callgrind's loop) runs the real applier: a
refused edit would end it with a message and a non-zero exit."""

from __future__ import annotations

import subprocess
import sys


def test_a_few_hunks_apply() -> None:
    done = subprocess.run([sys.executable, "-m", "spark_cli.bench.edits.edits", "3"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
