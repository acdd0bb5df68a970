"""A turn that drops mid-answer against the engine, then the next turn: replayed, never doubled.

The engine drops the WebSocket after the first turn's edit block landed. The
channel must not retry (output had started) and the session keeps the edit;
the next turn goes out on a new connection with the whole context (the partial
answer included) and applies only its own edit.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from spark_cli.protocol.channel import Reconnected
from spark_cli.protocol.tokens import count_tokens
from spark_cli.session.config.settings import load_settings
from spark_cli.session.conversation import Session
from spark_cli.session.events import EditLanded, EditRefused, TurnCompleted, TurnFailed

PY = "def total_price(items):\n    return sum(items)\n"
FIRST = ("Renaming.\napp.py\n<<<<<<< SEARCH\ndef total_price(items):\n=======\n"
         "def grand_total(items):\n>>>>>>> REPLACE\n")
SECOND = "app.py\n<<<<<<< SEARCH\n    return sum(items)\n=======\n    return 0\n>>>>>>> REPLACE\n"
TALK = "".join(f"and then some more words {n} " for n in range(60))


class TwoTurnBrain:
    name = "two-turns"

    def __init__(self) -> None:
        self.seen: list[list[tuple[str, str]]] = []

    def answer(self, request: Any) -> Iterator[str]:
        self.seen.append([(t.role, t.text) for t in request.conversation])
        yield SECOND if "second" in request.prompt else FIRST + TALK


async def _turn(session: Session, instruction: str) -> list[Any]:
    async with asyncio.timeout(20):
        return [e async for e in session.run_turn(instruction, ["app.py"])]


async def test_drop_then_replay_never_applies_an_edit_twice(
    tmp_path: Path, engine_factory: Any
) -> None:
    from spark_cli.engine.core.config import FaultConfig
    from spark_cli.transport.factory import open_channel

    assert count_tokens(SECOND) < count_tokens(FIRST) + 20  # the second answer is not dropped
    brain = TwoTurnBrain()
    engine = await engine_factory(brains=lambda model: brain, ttft_ms=0, tps=5000,
                                  faults=FaultConfig(drop_after_tokens=count_tokens(FIRST) + 20))
    (tmp_path / "app.py").write_text(PY)
    settings = load_settings(tmp_path, {}, {"SPARK_CONFIG_DIR": str(tmp_path / "cfg")})
    channel = open_channel("responses_ws", base_url=engine.url + "/v1", api_key=engine.token,
                           warm_spare=False)
    try:
        session = Session(channel, tmp_path, settings)
        first = await _turn(session, "rename total_price to grand_total")
        after_first = (tmp_path / "app.py").read_text()
        second = await _turn(session, "second: return 0")
    finally:
        await channel.aclose()

    assert isinstance(first[-1], TurnFailed) and first[-1].kind == "connection"
    assert [type(e) for e in first if isinstance(e, EditLanded | EditRefused)] == [EditLanded]
    assert after_first == PY.replace("total_price", "grand_total")

    assert any(isinstance(e, Reconnected) for e in second)
    landed = [e for e in second if isinstance(e, EditLanded | EditRefused)]
    assert len(landed) == 1 and isinstance(landed[0], EditLanded)
    assert isinstance(second[-1], TurnCompleted) and second[-1].status == "completed"
    assert (tmp_path / "app.py").read_text() == "def grand_total(items):\n    return 0\n"
    replayed = brain.seen[-1]
    assert [role for role, _ in replayed] == ["user", "assistant", "user"]
    assert replayed[1][1].startswith(FIRST)  # the partial answer went back as context
