"""The scripted real-terminal tour (examples/tui_tour.sh) where tmux exists."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TOUR = Path(__file__).resolve().parents[2] / "examples" / "tui_tour.sh"


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_the_tour_shows_every_step(tmp_path: Path) -> None:
    env = {**os.environ, "TPS": "400", "DEEP_TPS": "1500", "SESSION": f"spark-tour-{os.getpid()}",
           "SPARK": str(Path(sys.executable).with_name("spark"))}
    done = subprocess.run(["bash", str(TOUR)], capture_output=True, text=True, timeout=240,
                          env=env, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "every step showed what it should" in done.stdout
