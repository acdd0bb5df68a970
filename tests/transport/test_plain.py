"""``SPARK_PLAIN``: the switch's words, and a whole `spark edit` on each wire with every
start-up trick off (httpx, websockets' own ``connect``, no stand-in modules, typer)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from spark_cli.transport.fast import TRICKS, on


@pytest.mark.parametrize(("value", "off"), [
    ("", set()), ("0", set()), ("1", set(TRICKS)), ("yes", set(TRICKS)),
    ("h11, head_start", {"h11", "head_start"}), ("h11,no_such_trick", set(TRICKS)),
])
def test_the_switch_reads_all_none_or_the_tricks_named(monkeypatch: pytest.MonkeyPatch,
                                                       value: str, off: set[str]) -> None:
    monkeypatch.setenv("SPARK_PLAIN", value)
    assert {trick for trick in TRICKS if not on(trick)} == off


REPORT = (
    "import atexit, os, sys\n"
    "def report():\n"
    "    from types import ModuleType\n"
    "    fast = sorted(m for m in sys.modules if m.startswith('spark_cli.transport.fast.'))\n"
    "    stand_ins = sorted(m for m, v in sys.modules.items()\n"
    "                       if isinstance(v, ModuleType) and type(v) is not ModuleType\n"
    "                       and type(v).__name__ == '_Deferred')\n"
    "    libs = sorted({m.split('.')[0] for m in sys.modules} & {'httpx', 'typer'})\n"
    "    version = getattr(sys.modules.get('websockets.version'), '__file__', None)\n"
    "    sys.stderr.write(f'FAST:{fast} STAND-INS:{stand_ins} LIBS:{libs} '\n"
    "                     f'WSVERSION:{version is not None}\\n')\n"
    "    sys.stderr.flush()\n"
    "atexit.register(report)\n"
    "_exit = os._exit\n"
    "os._exit = lambda status: (report(), _exit(status))\n"  # spark edit's quick exit
    "from spark_cli.cli.entry import run\n"
    "sys.argv = ['spark', *sys.argv[1:]]\n"
    "run()\n"
)


@pytest.mark.parametrize("wire", ["chat_sse", "responses_ws"])
async def test_spark_plain_runs_a_whole_edit_on_the_plain_path(engine: Any, tmp_path: Path,
                                                               wire: str) -> None:
    (tmp_path / "hello.py").write_text("def greet():\n    return 'hi'\n")
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.toml").write_text("context_window = 32768\n")
    provider = (["--provider", "mock"] if wire == "responses_ws"
                else ["--provider", "openai-compatible", "--model", "spark-fast"])
    env = {**os.environ, "SPARK_PLAIN": "1", "SPARK_API_KEY": engine.token,
           "SPARK_CONFIG_DIR": str(tmp_path / "config")}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", REPORT, "edit", "hello.py", "-m", "rename greet to welcome",
        "--json", *provider, "--base-url", engine.url + "/v1", cwd=tmp_path, env=env,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    async with asyncio.timeout(60):
        out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    assert "def welcome()" in (tmp_path / "hello.py").read_text()
    assert '"request_sent"' in out.decode()
    libs = "['httpx', 'typer']" if wire == "chat_sse" else "['typer']"
    assert f"FAST:[] STAND-INS:[] LIBS:{libs} WSVERSION:{wire == 'responses_ws'}" in err.decode()
