"""A long agentic turn compacts inside its own tool loop: before a follow-up would pass
``compact_at``, what came before its latest tool round is folded into one summary."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from session_fakes import ResponsesChannel

from spark_cli.protocol.channel import (
    Message,
    ToolCall,
    ToolCallCompleted,
    ToolCallOpened,
    ToolOutput,
    TurnRequest,
)
from spark_cli.protocol.summaries import COMPACT_INSTRUCTIONS, SUMMARY_HEAD
from spark_cli.session.config.settings import load_settings
from spark_cli.session.conversation import Session
from spark_cli.session.events import CompactionFinished, CompactionStarted, TurnCompleted


def _model() -> Callable[[TurnRequest], list[Any]]:
    """Reads part0.py … part5.py, one per response, then ends; summarises when asked."""
    asked: list[TurnRequest] = []

    def answer(request: TurnRequest) -> list[Any]:
        if request.instructions == COMPACT_INSTRUCTIONS:
            return ["The model read part files one by one.\n"]
        asked.append(request)
        reads = len(asked) - 1
        if reads >= 6:
            return ["I read them all. Done.\n"]
        call = ToolCall(f"c{reads}", "read_file", json.dumps({"path": f"part{reads}.py"}))
        return [f"Reading part{reads}.py.\n", ToolCallOpened(call.call_id, call.name),
                ToolCallCompleted(call)]

    return answer


async def test_a_long_turn_folds_its_earlier_rounds_and_goes_on(tmp_path: Path) -> None:
    for n in range(6):
        (tmp_path / f"part{n}.py").write_text(
            "".join(f"value_{n}_{k} = {k}  # a line of part {n}\n" for k in range(60)))
    settings = load_settings(tmp_path, {"context_window": 8000, "commands": "off"},
                             {"SPARK_CONFIG_DIR": str(tmp_path / ".none")})
    channel = ResponsesChannel([_model()])
    session = Session(channel, tmp_path, settings)
    events = [e async for e in session.run_turn("read every part file", [])]
    assert type(events[-1]) is TurnCompleted and events[-1].status == "completed"
    started = [e for e in events if type(e) is CompactionStarted]
    done = [e for e in events if type(e) is CompactionFinished]
    assert started and started[0].auto and done and done[0].outcome == "compacted"
    assert done[0].tokens_after < done[0].tokens_before
    compacting = next(i for i, r in enumerate(channel.requests)
                      if r.instructions == COMPACT_INSTRUCTIONS)
    after = channel.requests[compacting + 1]
    first = after.messages[0]
    assert type(first) is Message and first.content.startswith(SUMMARY_HEAD)
    assert "- read every part file" in first.content  # the ask is kept (the ledger)
    calls = [m.call_id for m in after.messages if type(m) is ToolCall]
    assert len(calls) == 1 and calls[0] != "c0"  # the latest round: the earlier are folded
    kept = session.turns[-1].items  # every round, as it was
    assert sum(type(m) is ToolOutput for m in kept) == 6
    assert session.history[0] == first and session.history[-1] == kept[-1]


async def test_esc_during_a_turns_compaction_ends_the_turn_and_keeps_what_was_read(
        tmp_path: Path) -> None:
    for n in range(6):
        (tmp_path / f"part{n}.py").write_text(
            "".join(f"value_{n}_{k} = {k}  # a line of part {n}\n" for k in range(60)))
    settings = load_settings(tmp_path, {"context_window": 8000, "commands": "off"},
                             {"SPARK_CONFIG_DIR": str(tmp_path / ".none")})
    channel = ResponsesChannel([_model()])
    session = Session(channel, tmp_path, settings)
    events: list[Any] = []
    async for event in session.run_turn("read every part file", []):
        events.append(event)
        if type(event) is CompactionStarted:
            await session.interrupt()
    done = [e for e in events if type(e) is CompactionFinished]
    assert done and done[0].outcome == "cancelled"
    assert type(events[-1]) is TurnCompleted and events[-1].status == "cancelled"
    assert channel.requests[-1].instructions == COMPACT_INSTRUCTIONS  # nothing sent after it
    assert not session.streaming and not any(
        type(m) is Message and m.content.startswith(SUMMARY_HEAD) for m in session.history)
    assert sum(type(m) is ToolOutput for m in session.history) >= 2  # what was read stays
