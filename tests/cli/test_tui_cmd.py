"""`spark` with no command outside a terminal: a pointer to `spark edit`, exit 2."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from spark_cli.cli.tui_cmd import connect
from spark_cli.session.config.settings import load_settings


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


async def test_channels_open_at_once_share_one_bundled_engine(tmp_path: Path) -> None:
    settings = load_settings(tmp_path, {"provider": "mock"}, {"SPARK_CONFIG_DIR": str(tmp_path)})

    def engines() -> int:
        return sum(t.name == "spark-engine" for t in threading.enumerate())

    before = engines()
    async with connect(settings), connect(settings), connect(settings):  # a session, a race
        assert engines() == before + 1
    assert engines() == before  # the last one out stopped it
