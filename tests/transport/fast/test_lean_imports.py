"""The channels' libraries imported lean: httpx without its CLI, websockets without
importlib.metadata."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def _run(code: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    return done.stdout.split()


def test_the_websocket_channel_skips_importlib_metadata_and_keeps_the_version() -> None:
    out = _run("import sys\n"
               "from spark_cli.transport.factory import open_channel\n"
               "open_channel('responses_ws', base_url='http://127.0.0.1:9/v1', api_key=None,"
               " warm_spare=False)\n"
               "import websockets\n"
               "print('importlib.metadata' in sys.modules, websockets.__version__)\n"
               "import importlib.metadata\n"
               "print(importlib.metadata.version('websockets'))\n")
    assert out[0] == "False"
    assert out[1] == out[2]


def test_nothing_is_registered_once_websockets_is_imported() -> None:
    out = _run("import sys, websockets\n"
               "module = sys.modules['websockets.version']\n"
               "from spark_cli.transport.fast import websockets_lean\n"
               "websockets_lean.prepare()\n"
               "print(sys.modules['websockets.version'] is module)\n")
    assert out == ["True"]


def test_httpx_users_never_load_httpx_cli() -> None:
    code = ("import sys\n"
            # the seam the probe and the channels get httpx through
            "from spark_cli.transport.sse.http_route import blocking_client\n"
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
