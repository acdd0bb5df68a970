"""The in-process engine leaves the process's signal handlers alone (issue 7).

uvicorn's ``Server.serve`` installs its own SIGINT/SIGTERM handlers while it
runs; the embedded engine must not, so Ctrl-C in `spark edit` reaches spark's
own handler: a real SIGINT mid-turn on the bundled path (no ``--base-url``:
the engine runs inside the `spark edit` process) ends the run as docs/cli.md
says: exit 130, the turn cancelled, the end diff and the summary printed.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

CALLERS = 400


def _calls(number: int) -> str:
    return "".join(f"def caller_{i}(x):\n    y = x + {i}\n    return total_price([y, {i}])\n\n\n"
                   for i in range(number))


async def test_running_the_engine_in_process_keeps_the_signal_handlers(
    engine_factory: Any,
) -> None:
    def mine(signum: int, frame: object) -> None:
        raise AssertionError("not called")

    previous = {sig: signal.signal(sig, mine) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        await engine_factory()
        assert signal.getsignal(signal.SIGINT) is mine
        assert signal.getsignal(signal.SIGTERM) is mine
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@pytest.fixture
def long_rename(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A repo whose rename takes the bundled engine seconds (hundreds of edit blocks)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "app.py").write_text("def total_price(items):\n    return sum(items)\n\n\n"
                                 + _calls(CALLERS))
    config = tmp_path / "config"
    config.mkdir()
    env = {key: value for key, value in os.environ.items()
           if key not in ("OPENAI_API_KEY", "CEREBRAS_API_KEY", "SPARK_API_KEY")}
    env |= {"SPARK_CONFIG_DIR": str(config), "NO_COLOR": "1"}
    return repo, env


async def test_sigint_mid_turn_on_the_bundled_engine_ends_as_documented(
    long_rename: tuple[Path, dict[str, str]],
) -> None:
    repo, env = long_rename
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "spark_cli", "edit", "app.py", "--json",
        "-m", "rename total_price to grand_total", cwd=repo, env=env,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    assert proc.stdout is not None
    lines: list[str] = []
    async with asyncio.timeout(60):
        while True:
            line = (await proc.stdout.readline()).decode()
            assert line, "the run ended before it could be interrupted"
            lines.append(line)
            if '"edit_applied"' in line:
                break
        proc.send_signal(signal.SIGINT)
        rest, err = await proc.communicate()
    assert proc.returncode == 130, err.decode()
    events = [json.loads(line) for line in "".join([*lines, rest.decode()]).splitlines()]
    types = [event["type"] for event in events]
    completed = next(event for event in events if event["type"] == "turn_completed")
    assert (completed["status"], completed["reason"]) == ("cancelled", "interrupted")
    assert types.index("turn_completed") < types.index("diff") < types.index("summary")
    assert types[-1] == "summary" and events[-1]["exit_code"] == 130
    applied = types.count("edit_applied")
    assert 1 <= applied < CALLERS // 2  # generation stopped well before the end
    diff = next(event for event in events if event["type"] == "diff")["diff"]
    assert "grand_total" in diff
    assert "Traceback" not in err.decode()
