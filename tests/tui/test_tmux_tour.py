"""The scripted real-terminal tour (examples/tui_tour.sh) where tmux exists.

The tour runs on a tmux server of its own (``-L``) in a socket dir of its own
(``TMUX_TMPDIR``), so another tmux user on the machine never meets it: the test
keeps a decoy session of the same name on the default server of that dir.
"""

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
    session = f"spark-tour-{os.getpid()}"
    sockets = tmp_path / "tmux"
    sockets.mkdir()
    env = {**os.environ, "TPS": "400", "DEEP_TPS": "1500", "SESSION": session,
           "SPARK": str(Path(sys.executable).with_name("spark")), "TMUX_TMPDIR": str(sockets)}
    env.pop("TMUX", None)
    # another user's session on the default server, under the same name
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "sleep 600"], env=env,
                   check=True, stdin=subprocess.DEVNULL)
    try:
        done = subprocess.run(["bash", str(TOUR)], capture_output=True, text=True,
                              timeout=240, env=env, stdin=subprocess.DEVNULL)
        decoy = subprocess.run(["tmux", "has-session", "-t", session], env=env,
                               stdin=subprocess.DEVNULL)
    finally:
        subprocess.run(["tmux", "kill-server"], env=env, stdin=subprocess.DEVNULL,
                       capture_output=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "every step showed what it should" in done.stdout
    assert decoy.returncode == 0, "the tour touched the default server's session"
