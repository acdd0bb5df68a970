"""Compaction over the bundled engine: before a request passes ``compact_at`` the older turns
become one summary; a cancel or a failure leaves the conversation as it was."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from spark_cli.protocol.channel import Message
from spark_cli.protocol.compaction import SUMMARY_HEAD
from spark_cli.session.config.settings import load_settings
from spark_cli.session.conversation import Session
from spark_cli.session.events import (
    CompactionFinished,
    CompactionStarted,
    SessionEvent,
    TurnCompleted,
)


def _repo(root: Path, files: int = 8) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for n in range(files):
        body = "".join(f"def step_{n}_{k}(value):\n    \"\"\"Step {k}.\"\"\"\n"
                       f"    return value + {k}\n\n\n" for k in range(24))
        (root / f"mod{n}.py").write_text(body)
    return root


@contextlib.asynccontextmanager
async def session_on(tmp_path: Path, engine: Any, **flags: Any) -> AsyncIterator[Session]:
    from spark_cli.cli.wiring import open_provider_channel  # deferred: the CLI's wiring

    root = _repo(tmp_path / "repo")
    settings = load_settings(root, {"provider": "mock", "base_url": engine.url + "/v1",
                                    "model": "spark-rules", "context_window": 8000,
                                    "commands": "off", **flags},
                             {"SPARK_CONFIG_DIR": str(tmp_path / "cfg"),
                              "SPARK_API_KEY": engine.token})
    async with open_provider_channel(settings.provider, idle_timeout=20) as channel:
        yield Session(channel, root, settings)


async def turn(session: Session, text: str, files: list[str]) -> list[SessionEvent]:
    return [event async for event in session.run_turn(text, files)]


async def test_a_long_session_compacts_instead_of_dropping(tmp_path: Path, engine_factory) -> None:
    engine = await engine_factory(tps=20000)
    async with session_on(tmp_path, engine) as session:
        seen: list[SessionEvent] = []
        for n in range(8):
            seen += await turn(session, f"explain mod{n}.py", [f"mod{n}.py"])
    done = [e for e in seen if type(e) is CompactionFinished]
    assert any(type(e) is CompactionStarted and e.auto for e in seen)
    assert done and done[0].outcome == "compacted" and done[0].tokens_after < done[0].tokens_before
    assert len([m for m in session.history if type(m) is Message and m.role == "user"]) == 8
    assert session.compaction is not None and session.compaction.summary.startswith(SUMMARY_HEAD)
    assert all("left out" not in line for line in session.context.trimmed)
    assert [e for e in seen if type(e) is TurnCompleted][-1].status == "completed"


