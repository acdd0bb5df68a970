"""MCP hub tests: real servers (the registry's mcp-server-time and mcp-server-git, and the
script server here), each hub with its own cache folder; ``descendants`` lists the
processes this test process started (read from /proc), to check none is left."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from spark_cli.mcp.hub import McpHub
from spark_cli.mcp.mcp_config import McpServerConfig

SCRIPT = str(Path(__file__).with_name("script_server.py"))
BIN = Path(sys.executable).parent


def registry_server(name: str) -> str:
    found = shutil.which(name) or str(BIN / name)
    assert Path(found).exists(), f"{name} is not installed (pip install -e '.[dev]')"
    return found


def script(name: str = "script", *extra: str, **values: object) -> McpServerConfig:
    return McpServerConfig(name, "test", command=sys.executable, args=(SCRIPT, *extra),
                           **values)  # type: ignore[arg-type]


def descendants(pid: int | None = None) -> set[int]:
    """Every live process below ``pid`` (default: this one)."""
    found: set[int] = set()
    todo = [pid or os.getpid()]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            for child in map(int, children):
                if child not in found:
                    found.add(child)
                    todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.fixture
async def make_hub(tmp_path: Path) -> AsyncIterator[Callable[..., McpHub]]:
    """Hubs over ``tmp_path`` with one cache folder, all closed at the test's end."""
    made: list[McpHub] = []

    def make(*servers: McpServerConfig, environ: dict[str, str] | None = None) -> McpHub:
        hub = McpHub(servers, tmp_path, cache=tmp_path / "cache", environ=environ)
        made.append(hub)
        return hub

    yield make
    for hub in made:
        await hub.aclose()
