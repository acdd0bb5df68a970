"""The HTTP channels import httpx without its command-line tool (rich, click, pygments)."""

from __future__ import annotations

import subprocess
import sys


def test_the_http_channels_never_load_httpx_cli() -> None:
    code = ("import sys\n"
            "import spark_cli.transport.http_chat, spark_cli.transport.http_responses\n"
            "import httpx\n"
            "assert httpx.AsyncClient and httpx.MockTransport\n"
            "print(','.join(m for m in sys.modules if m.split('.')[0] in"
            " ('rich', 'click', 'pygments') or m == 'httpx._main'))\n"
            "import httpx._main\n"  # the block was lifted: httpx's CLI still imports on demand
            "print('httpx._main' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.split("\n")[:2] == ["", "True"]
