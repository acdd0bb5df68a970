"""An editor in miniature, built on the official ACP SDK's client side (not a test module).

``Editor`` keeps every ``session/update`` and answers ``session/request_permission`` with a
chosen option; ``spark_acp`` runs `spark acp` as a subprocess on stdio in a repo and yields
the SDK's connection, initialized. ``slow_engine`` is `spark engine serve` at a low pace.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError, spawn_agent_process
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    ReadTextFileResponse,
    RequestPermissionResponse,
    WriteTextFileResponse,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "repo"
_URL = re.compile(r"listening on ws://(127\.0\.0\.1:\d+)/")


class Editor:
    """The client side: records updates, answers permission questions with ``answer``."""

    def __init__(self, answer: str = "reject", buffers: dict[str, str] | None = None) -> None:
        self.buffers = buffers or {}
        """Absolute path -> the text of its open buffer (fs/read_text_file)."""
        self.written: dict[str, str] = {}
        """What spark wrote through fs/write_text_file (path -> text)."""
        self.updates: list[Any] = []
        self.asked: list[tuple[Any, list[Any]]] = []
        self.answer = answer
        self.first_chunk = asyncio.Event()

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)
        if update.session_update == "agent_message_chunk":
            self.first_chunk.set()

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any],
                                 **kwargs: Any) -> RequestPermissionResponse:
        self.asked.append((tool_call, options))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=self.answer))

    async def read_text_file(self, session_id: str, path: str, **kwargs: Any) -> Any:
        if path not in self.buffers:
            raise RequestError.resource_not_found(path)
        return ReadTextFileResponse(content=self.buffers[path])

    async def write_text_file(self, session_id: str, path: str, content: str,
                              **kwargs: Any) -> WriteTextFileResponse:
        self.written[path] = self.buffers[path] = content
        return WriteTextFileResponse()

    def of(self, kind: str) -> list[Any]:
        return [u for u in self.updates if u.session_update == kind]


def child_env(tmp: Path) -> dict[str, str]:
    env = {**os.environ, "SPARK_CONFIG_DIR": str(tmp / "config"),
           "SPARK_STATE_DIR": str(tmp / "state")}
    for key in ("OPENAI_API_KEY", "CEREBRAS_API_KEY", "SPARK_API_KEY"):
        env.pop(key, None)
    return env


@asynccontextmanager
async def spark_acp(repo: Path, editor: Editor, *args: str) -> AsyncIterator[ClientSideConnection]:
    """`spark acp ARGS` in ``repo``, initialized."""
    async with spawn_agent_process(editor, sys.executable, "-m", "spark_cli", "acp", *args,
                                   cwd=repo, env=child_env(repo.parent)) as (conn, _process):
        await conn.initialize(protocol_version=PROTOCOL_VERSION,
                              client_capabilities=ClientCapabilities())
        yield conn


@contextmanager
def slow_engine(tmp: Path, tps: int) -> Iterator[str]:
    """`spark engine serve --tps TPS` on a free port; its base URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "spark_cli", "engine", "serve", "--port", "0", "--tps", str(tps)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=child_env(tmp), text=True)
    try:
        assert process.stdout is not None
        found = _URL.search(process.stdout.readline())
        assert found, "the engine printed no URL"
        yield f"http://{found.group(1)}/v1"
    finally:
        process.terminate()
        process.wait(10)
        if process.stdout is not None:
            process.stdout.close()
