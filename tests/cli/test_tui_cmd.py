"""`spark` with no command outside a terminal: a pointer to `spark edit`, exit 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_not_a_tty_points_to_spark_edit(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "spark_cli"], input=b"print(1)\n",
                          capture_output=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 2
    assert b"needs a terminal" in done.stderr and b"spark edit" in done.stderr
    assert done.stdout == b""


def test_tui_flags_before_a_command_are_refused(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "spark_cli", "--provider", "openai", "undo"],
                          capture_output=True, timeout=60, cwd=tmp_path, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert b"are for the interactive session" in done.stderr
