"""Pipe mode under SIGTERM and SIGHUP (a real subprocess): the original text comes back on
stdout and the exit code is 128 + n, as Ctrl-C gives 130 (issue 20 item 6)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.edit.chat_script import ChatScript, chat_server

PY = "def total_price(items):\n    return sum(items)\n"
ANSWER = ("Renaming.\nstdin.py\n<<<<<<< SEARCH\ndef total_price(items):\n=======\n"
          "def grand_total(items):\n>>>>>>> REPLACE\n")


def _start(base_url: str, cwd: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPARK_")}
    env["SPARK_CONFIG_DIR"] = str(cwd / "no-user-config")
    return subprocess.Popen(
        [sys.executable, "-m", "spark_cli", "edit", "-m", "rename", "--provider",
         "openai-compatible", "--base-url", base_url, "--model", "m"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_mid_stream_gives_the_original_back(tmp_path: Path, sig: signal.Signals):
    script = ChatScript(ANSWER)
    script.hold = True  # the answer's first chunk, then nothing until released
    with chat_server(script) as base_url:
        proc = _start(base_url, tmp_path)
        assert proc.stdin is not None
        proc.stdin.write(PY.encode())
        proc.stdin.close()
        proc.stdin = None  # communicate() must not flush it again
        assert script.started.wait(60), "the request never arrived"
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    assert out == PY.encode()
    assert proc.returncode == 128 + sig, err
    assert b"the original text was written to stdout unchanged" in err
    if sig != signal.SIGINT:
        assert sig.name.encode() in err
