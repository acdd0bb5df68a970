"""What `spark edit` loads before its request leaves: only what building and sending it needs.

The consumer side (the streaming edit parser, the applier and its locate ladder,
tree-sitter, difflib) loads once the channel says the request left, while
the model thinks. A real `spark edit --json` process against the engine reports
``sys.modules`` at its ``request_sent`` event and again at its summary.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from spark_cli.transport.fast import TRICKS, on

PY = ('def total_price(items):\n    return sum(items)\n\n\n'
      'def report(items):\n    return "total: " + str(total_price(items))\n')
CONSUMER = ("spark_cli.edits.apply.applier", "spark_cli.edits.formats.stream_parser",
            "spark_cli.edits.locate.ladder")
NEVER_BEFORE = (*CONSUMER, "difflib", "typer", "click", "textual", "rich", "httpx")
FAST_ONLY = {"typer", "click", "rich", "httpx", "difflib"}
"""Loaded before the request on the plain path (``SPARK_PLAIN``: typer, which imports
difflib, reads the line)."""
MAP_PARSING = ("tree_sitter", "pathspec")
"""Loaded before the request only when there is a repo map to build."""
PROBE = (
    "import sys\n"
    "import spark_cli.render.jsonl as J\n"
    f"WATCH = {(*NEVER_BEFORE, *MAP_PARSING)!r}\n"
    "def seen(where):\n"
    "    sys.stderr.write(where + ' ' + ','.join(m for m in WATCH if m in sys.modules) + '\\n')\n"
    "sent, summary = J.JsonLinesRenderer.request_sent, J.JsonLinesRenderer.summary\n"
    "def request_sent(self, at):\n"
    "    seen('AT-REQUEST')\n"
    "    sent(self, at)\n"
    "def at_end(self, data):\n"
    "    seen('AT-END')\n"
    "    summary(self, data)\n"
    "J.JsonLinesRenderer.request_sent, J.JsonLinesRenderer.summary = request_sent, at_end\n"
    "sys.argv = ['spark', *sys.argv[1:]]\n"
    "from spark_cli.cli.entry import run\n"
    "run()\n"
)


async def _loaded(repo: Path, engine_factory, tmp_path: Path) -> dict[str, set[str]]:
    engine = await engine_factory(brain="rules", ttft_ms=0)
    env = {**os.environ, "SPARK_API_KEY": engine.token, "SPARK_CONFIG_DIR": str(tmp_path / "cfg")}
    argv = [sys.executable, "-c", PROBE, "edit", "app.py", "--json", "--provider", "mock",
            "--base-url", engine.url + "/v1", "-m", "rename total_price to grand_total"]
    done = await asyncio.to_thread(subprocess.run, argv, cwd=repo, env=env, capture_output=True,
                                   text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "grand_total" in (repo / "app.py").read_text()  # the answer was consumed
    marks: dict[str, str] = {}
    for line in done.stderr.splitlines():  # the first of each: a turn that called tools
        if line.startswith("AT-"):  # sends a request per response
            where, _, modules = line.partition(" ")
            marks.setdefault(where, modules)
    return {where: set(filter(None, modules.split(","))) for where, modules in marks.items()}


@pytest.mark.parametrize("with_other_files", [False, True])
async def test_the_consumer_side_loads_after_the_request_left(tmp_path: Path, engine_factory,
                                                              with_other_files: bool):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "app.py").write_text(PY)
    if with_other_files:  # a repo map to build: its parsing may load tree-sitter and pathspec
        (repo / "shop.py").write_text("from app import total_price\n\n\n"
                                      "def checkout(items):\n    return total_price(items)\n")
        (repo / ".gitignore").write_text("*.log\n")
    loaded = await _loaded(repo, engine_factory, tmp_path)
    never = set(NEVER_BEFORE) - (set() if all(map(on, TRICKS)) else FAST_ONLY)
    assert not loaded["AT-REQUEST"] & never
    if not with_other_files:  # one file, nothing to map: no parser of any kind yet
        assert not loaded["AT-REQUEST"] & set(MAP_PARSING)
    assert set(CONSUMER) <= loaded["AT-END"]  # the probe sees the real run


AHEAD_PROBE = (
    "import sys\n"
    "from spark_cli.cli import wiring\n"
    "real = wiring.send_ahead\n"
    "def send_ahead(*args, **kwargs):\n"
    "    ahead = real(*args, **kwargs)\n"
    "    sent = ahead is not None and ahead.at is not None\n"
    "    sys.stderr.write(f'AHEAD sent={sent} asyncio={\"asyncio\" in sys.modules}\\n')\n"
    "    return ahead\n"
    "wiring.send_ahead = send_ahead\n"
    "sys.argv = ['spark', *sys.argv[1:]]\n"
    "from spark_cli.cli.entry import run\n"
    "run()\n"
)


@pytest.mark.skipif(not on("head_start"), reason="SPARK_PLAIN: nothing is sent ahead")
@pytest.mark.parametrize("kind", ["chat_sse", "responses_sse", "responses_ws"])
async def test_the_request_leaves_before_asyncio_is_imported(tmp_path: Path, engine_factory,
                                                             kind: str):
    """The head start (``wiring.send_ahead``) in a real process: sent, and no event loop yet;
    the turn then runs on the connection it was sent on and the edit lands."""
    engine = await engine_factory(brain="rules", ttft_ms=0)
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "app.py").write_text(PY)
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    provider = ["--provider", "openai-compatible", "--model", "m"]
    if kind == "responses_ws":
        provider = ["--provider", "mock"]  # a running engine: its WebSocket
    else:
        (cfg / "config.toml").write_text(f'kind = "{kind}"\n')
    env = {**os.environ, "SPARK_API_KEY": engine.token, "SPARK_CONFIG_DIR": str(cfg)}
    argv = [sys.executable, "-c", AHEAD_PROBE, "edit", "app.py", "--json", *provider,
            "--base-url", engine.url + "/v1", "-m", "rename total_price to grand_total"]
    done = await asyncio.to_thread(subprocess.run, argv, cwd=repo, env=env, capture_output=True,
                                   text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "AHEAD sent=True asyncio=False" in done.stderr
    assert "grand_total" in (repo / "app.py").read_text()
