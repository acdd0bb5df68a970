"""No server process is left when the process holding the hub gets SIGTERM or Ctrl+C, with
real servers (mcp-server-time, the script server, one still starting)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mcp.conftest import SCRIPT, alive, descendants, registry_server
from tests.waiting import wait_until_sync

CHILD = Path(__file__).with_name("hub_child.py")
ROOT = Path(__file__).parents[2]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_leaves_no_server_behind(tmp_path: Path, sig: signal.Signals) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with subprocess.Popen([sys.executable, str(CHILD), str(tmp_path),
                           registry_server("mcp-server-time"), SCRIPT],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                          cwd=tmp_path) as child:
        try:
            assert child.stdout is not None and child.stdout.readline() == "ready\n"
            wait_until_sync(lambda: len(descendants(child.pid)) >= 3, what="three servers")
            servers = descendants(child.pid)
            child.send_signal(sig)
            assert child.wait(timeout=30) in (0, 1, -sig, 128 + sig), child.stderr
        finally:
            child.kill()
    wait_until_sync(lambda: not any(alive(pid) for pid in servers), timeout=10,
                    what=lambda: f"left: {[pid for pid in servers if alive(pid)]}")
