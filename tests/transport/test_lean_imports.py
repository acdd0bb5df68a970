"""The channels' libraries imported lean: httpx without its CLI, websockets without
importlib.metadata."""

from __future__ import annotations

import subprocess
import sys


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
               "from spark_cli.transport.ws import websockets_lean\n"
               "websockets_lean.prepare()\n"
               "print(sys.modules['websockets.version'] is module)\n")
    assert out == ["True"]


def test_the_http_channels_never_load_httpx_cli() -> None:
    code = ("import sys\n"
            "import spark_cli.transport.sse.http_chat, spark_cli.transport.sse.http_responses\n"
            "import httpx\n"
            "assert httpx.AsyncClient and httpx.MockTransport\n"
            "print(','.join(m for m in sys.modules if m.split('.')[0] in"
            " ('rich', 'click', 'pygments') or m == 'httpx._main'))\n"
            "import httpx._main\n"  # the block was lifted: httpx's CLI still imports on demand
            "print('httpx._main' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.split("\n")[:2] == ["", "True"]
