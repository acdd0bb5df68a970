"""Each turn's messages extend the last one's byte for byte (what WebSocket chaining needs)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from session_fakes import ScriptedChannel

from spark_cli.session.config.settings import load_settings
from spark_cli.session.context.repo_map import MAP_HEADER
from spark_cli.session.conversation import Session


def _repo(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    for n in range(6):
        (root / "pkg" / f"mod{n}.py").write_text(
            f"def helper_{n}(x):\n    return x + {n}\n\n\nclass Thing{n}:\n    pass\n")
    (root / "app.py").write_text("from pkg.mod1 import helper_1\n\n\ndef run():\n"
                                 "    return helper_1(2)\n")
    return root


async def test_the_second_request_extends_the_first_and_the_map_travels_once(
        tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    settings = load_settings(root, {}, {"SPARK_CONFIG_DIR": str(tmp_path / "cfg")})
    channel = ScriptedChannel(["Sure, ", "done.\n"])
    session = Session(channel, root, settings)
    async with asyncio.timeout(30):
        for instruction in ("explain run", "now rename run to main"):
            channel.stopped.clear()
            [e async for e in session.run_turn(instruction, ["app.py"])]
    first, second = channel.requests
    assert second.messages[:len(first.messages)] == first.messages
    assert MAP_HEADER in first.messages[-1].content
    assert MAP_HEADER not in second.messages[-1].content
    assert session.history[0] == first.messages[-1]  # kept exactly as sent


class _WarmRecorder(ScriptedChannel):
    def __init__(self) -> None:
        super().__init__(["ok\n"])
        self.warmed: list[object] = []

    async def warm(self, request=None):  # type: ignore[no-untyped-def]
        self.warmed.append(request)


async def test_warm_sends_the_instructions_ahead_and_the_first_turn_extends_them(
        tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    (root / "AGENTS.md").write_text("Use tabs.\n")
    settings = load_settings(root, {}, {"SPARK_CONFIG_DIR": str(tmp_path / "cfg")})
    channel = _WarmRecorder()
    session = Session(channel, root, settings)
    await session.warm()
    warm = channel.warmed[0]
    assert warm is not None and warm.messages == () and "Use tabs." in warm.instructions
    [e async for e in session.run_turn("explain run", ["app.py"])]
    assert channel.requests[0].instructions == warm.instructions
    await session.warm()  # a conversation under way: only the connection is checked
    assert channel.warmed[1] is None


async def test_reset_starts_over_and_sends_the_files_again(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    settings = load_settings(root, {}, {"SPARK_CONFIG_DIR": str(tmp_path / "cfg")})
    channel = ScriptedChannel(["ok\n"])
    session = Session(channel, root, settings)
    [e async for e in session.run_turn("explain run", ["app.py"])]
    channel.stopped.clear()
    session.reset()
    assert session.history == []
    [e async for e in session.run_turn("explain run again", ["app.py"])]
    again = channel.requests[1].messages
    assert len(again) == 1 and "def run():" in again[0].content  # app.py travels again
    assert MAP_HEADER in again[0].content  # and so does the map: a new conversation
