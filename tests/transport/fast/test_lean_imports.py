"""httpx imported lean (without its CLI), and a Chat Completions `spark edit` without httpx."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def test_httpx_users_never_load_httpx_cli() -> None:
    code = ("import sys\n"
            # the seam the probe and the channels get httpx through
            "from spark_cli.transport.http_route import blocking_client\n"
            "blocking_client({}, 1.0).close()\n"
            "import httpx\n"
            "assert httpx.AsyncClient and httpx.MockTransport\n"
            "print(','.join(m for m in sys.modules if m.split('.')[0] in"
            " ('rich', 'click', 'pygments') or m == 'httpx._main'))\n"
            "import httpx._main\n"  # the block was lifted: httpx's CLI still imports on demand
            "print('httpx._main' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.split("\n")[:2] == ["", "True"]


async def test_a_chat_sse_spark_edit_never_imports_httpx(engine: Any, tmp_path: Path) -> None:
    """A whole `spark edit` on Chat Completions against the served engine, its window
    configured (nothing to ask: the window probe is httpx's): the lean client carried the
    turn (the rename landed) and httpx, httpcore and anyio never loaded."""
    (tmp_path / "hello.py").write_text("def greet():\n    return 'hi'\n")
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.toml").write_text("context_window = 32768\n")
    code = ("import atexit, os, sys\n"
            "def report():\n"
            "    names = {m.split('.')[0] for m in sys.modules}\n"
            "    sys.stderr.write('LOADED:' + ','.join(sorted(names & {'httpx', 'httpcore',"
            " 'anyio'})) + '\\n')\n"
            "    sys.stderr.flush()\n"
            "atexit.register(report)\n"
            "_exit = os._exit\n"
            "os._exit = lambda status: (report(), _exit(status))\n"  # spark edit's quick exit
            "from spark_cli.cli.entry import run\n"
            f"sys.argv = ['spark', 'edit', 'hello.py', '-m', 'rename greet to welcome', '--json',"
            f" '--provider', 'openai-compatible', '--model', 'spark-fast',"
            f" '--base-url', {engine.url + '/v1'!r}]\n"
            "run()\n")
    env = {**os.environ, "SPARK_API_KEY": engine.token,
           "SPARK_CONFIG_DIR": str(tmp_path / "config")}
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        env.pop(name, None)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, cwd=tmp_path, env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    async with asyncio.timeout(60):
        out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    assert "def welcome()" in (tmp_path / "hello.py").read_text()
    assert '"request_sent"' in out.decode()
    assert "LOADED:\n" in err.decode()
