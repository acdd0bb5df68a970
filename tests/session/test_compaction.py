"""Compaction over the bundled engine: before a request passes ``compact_at`` the older turns
become one summary; a cancel or a failure leaves the conversation as it was."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from session_fakes import ScriptedChannel
from waiting import wait_until

from spark_cli.protocol.channel import Message
from spark_cli.protocol.summaries import COMPACT_INSTRUCTIONS, SUMMARY_HEAD
from spark_cli.protocol.tokens import count_tokens
from spark_cli.session.config.settings import load_settings
from spark_cli.session.conversation import Session
from spark_cli.session.events import (
    CompactionFinished,
    CompactionStarted,
    SessionEvent,
    TurnCompleted,
    TurnFailed,
)
from spark_cli.session.window.compaction import LEDGER_HEAD, budgets


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
        maps: list[int] = []  # the map's tokens in each request right after a compaction
        for n in range(8):
            events = await turn(session, f"explain mod{n}.py", [f"mod{n}.py"])
            if any(type(e) is CompactionFinished for e in events):
                maps.append(session.context.parts["map"])
            seen += events
    done = [e for e in seen if type(e) is CompactionFinished]
    assert any(type(e) is CompactionStarted and e.auto for e in seen)
    assert done and done[0].outcome == "compacted" and done[0].tokens_after < done[0].tokens_before
    assert [t.text for t in session.turns] == [f"explain mod{n}.py" for n in range(8)]
    first = session.history[0]
    assert type(first) is Message and first.content.startswith(SUMMARY_HEAD)
    assert all("left out" not in line for line in session.context.trimmed)
    assert maps and not any(maps)  # the map is not sent again after a compaction
    assert [e for e in seen if type(e) is TurnCompleted][-1].status == "completed"




def _history(turns: int, words: int = 300) -> list[Message]:
    items: list[Message] = []
    for n in range(turns):
        items += [Message("user", f"explain part {n} " + "word " * words),
                  Message("assistant", f"Part {n} does things. " + "more " * words)]
    return items


async def test_a_server_failing_mid_compaction_leaves_the_conversation_as_it_was(
        tmp_path: Path, engine_factory) -> None:
    from spark_cli.engine.core.config import FaultConfig  # deferred: the engine's knobs

    engine = await engine_factory(tps=20000, faults=FaultConfig(drop_after_tokens=4))
    async with session_on(tmp_path, engine, tools=False) as session:
        session.restore(_history(10))
        before = list(session.history)
        events = [e async for e in session.compact()]
        assert [type(e) for e in events] == [CompactionStarted, CompactionFinished]
        failed = events[-1]
        assert failed.outcome == "failed" and "compaction failed" in failed.line
        assert failed.line.endswith("the conversation is as it was")
        assert session.history == before
        # before a turn: the failed compaction is said, then dropping is the last resort
        seen = await turn(session, "explain mod1.py", ["mod1.py"])
    assert [e.outcome for e in seen if type(e) is CompactionFinished] == ["failed"]
    assert session.context is not None
    assert "(the compaction failed: they were not summarised)" in session.context.trimmed[0]
    assert session.turns[-1].text == "explain mod1.py"


async def test_esc_during_a_compaction_cancels_it_and_the_turn_is_not_sent(
        tmp_path: Path, engine_factory) -> None:
    engine = await engine_factory(tps=40)
    async with session_on(tmp_path, engine, tools=False, compact_model="spark-lorem") as session:
        session.restore(_history(6))
        before = list(session.history)
        seen: list[SessionEvent] = []

        async def run() -> None:
            async for event in session.run_turn("explain mod1.py", ["mod1.py"]):
                seen.append(event)

        task = asyncio.ensure_future(run())
        await wait_until(lambda: any(type(e) is CompactionStarted for e in seen))
        await session.interrupt()
        await task
    done = [e for e in seen if type(e) is CompactionFinished]
    assert done and done[0].outcome == "cancelled" and done[0].auto
    assert type(seen[-1]) is TurnCompleted and seen[-1].status == "cancelled"
    assert session.history == before and not session.streaming


async def test_a_summary_larger_than_its_budget_is_cut_and_said(tmp_path: Path,
                                                                engine_factory) -> None:
    engine = await engine_factory(tps=50000)  # spark-lorem writes until max_output_tokens
    async with session_on(tmp_path, engine, tools=False, compact_model="spark-lorem") as session:
        session.restore(_history(6))
        events = [e async for e in session.compact("the parser")]
    done = events[-1]
    assert type(done) is CompactionFinished and done.outcome == "compacted"
    assert done.line.endswith("the summary was cut to its budget")
    summary = session.history[0].content.split(LEDGER_HEAD)[0]
    assert "[summary cut to fit its budget:" in summary
    assert count_tokens(summary) <= budgets(session.settings)[0] + 40  # the head and the note
    assert len(session.history) == 5  # the summary, the last 2 turns kept whole


async def test_with_auto_compact_off_the_oldest_turns_are_dropped_and_it_is_said(
        tmp_path: Path, engine_factory) -> None:
    engine = await engine_factory(tps=20000)
    async with session_on(tmp_path, engine, tools=False, auto_compact=False) as session:
        session.restore(_history(12))
        seen = await turn(session, "explain mod1.py", ["mod1.py"])
    assert not any(type(e) in (CompactionStarted, CompactionFinished) for e in seen)
    assert session.context is not None
    assert session.context.trimmed[0].endswith("(auto_compact is off: they were not summarised)")
    assert not any(m.content.startswith(SUMMARY_HEAD) for m in session.history)


async def test_compact_model_writes_the_summary_when_set(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    settings = load_settings(root, {"compact_model": "small-fast", "context_window": 8000},
                             {"SPARK_CONFIG_DIR": str(tmp_path / "cfg")})
    channel = ScriptedChannel(["Earlier: the user explained parts 0 to 3.\n"])
    session = Session(channel, root, settings)
    session.restore(_history(6))
    before = list(session.history)
    events = [e async for e in session.compact()]
    assert events[-1].outcome == "compacted"
    request = channel.requests[-1]
    assert request.model == "small-fast" and request.instructions == COMPACT_INSTRUCTIONS
    assert request.messages[:-1] == tuple(before[:8])  # the older turns, as they were
    assert session.history[1:] == before[8:]  # the summary, then the last 2 turns
    assert "Earlier: the user explained parts 0 to 3." in session.history[0].content


async def test_a_message_that_alone_does_not_fit_is_still_refused(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    (root / "big.py").write_text("value_number = 12345\n" * 3000)
    settings = load_settings(root, {"context_window": 8000, "tools": False},
                             {"SPARK_CONFIG_DIR": str(tmp_path / "cfg")})
    channel = ScriptedChannel(["unused\n"])
    session = Session(channel, root, settings)
    session.restore(_history(6))
    seen = await turn(session, "explain big.py", ["big.py"])
    assert [type(e) for e in seen] == [TurnFailed] and seen[0].kind == "budget"
    assert channel.requests == []  # nothing was sent, no compaction either


async def test_resume_sends_the_summary_and_not_the_folded_turns(tmp_path: Path) -> None:
    from spark_cli.session.workspace.store import SessionStore  # deferred: the saver

    root = _repo(tmp_path / "repo")
    settings = load_settings(root, {"context_window": 8000},
                             {"SPARK_CONFIG_DIR": str(tmp_path / "cfg")})
    session = Session(ScriptedChannel(["The user explained parts.\n"]), root, settings)
    for n in range(4):
        [e async for e in session.run_turn(f"explain mod{n}.py", [f"mod{n}.py"])]
    [e async for e in session.compact()]
    store = SessionStore(root, tmp_path / "state")
    store.save_conversation(session.history, provider="mock", model="m", turns=session.turns)
    saved = store.load_conversation()
    assert saved is not None and [t.text for t in saved.turns] == [
        f"explain mod{n}.py" for n in range(4)]  # every turn as it was, for the transcript
    resumed = Session(None, root, settings)
    resumed.restore(saved.history, saved.turns)
    assert resumed.prepare("next", []) is None and resumed.prepared is not None
    sent = resumed.prepared.messages
    assert type(sent[0]) is Message and sent[0].content.startswith(SUMMARY_HEAD)
    assert not any(m.content.strip().splitlines()[-1] == "explain mod0.py"
                   for m in sent if type(m) is Message)  # the folded turn is not sent
    assert sent[1:-1] == tuple(session.history[1:])


async def test_a_compaction_counts_in_the_usage_as_the_server_reported_it(
        tmp_path: Path, engine_factory) -> None:
    engine = await engine_factory(tps=20000)
    async with session_on(tmp_path, engine, tools=False) as session:
        session.restore(_history(10))
        manual = [e async for e in session.compact()]
        seen: list[SessionEvent] = []
        for n in range(8):  # long enough that one turn compacts before it is sent
            seen += await turn(session, f"explain mod{n}.py", [f"mod{n}.py"])
    done = manual[-1]
    assert type(done) is CompactionFinished and done.outcome == "compacted"
    assert done.usage is not None and done.usage.requests == 1 and not done.usage.counted
    assert done.usage.input_tokens > 0 and done.usage.output_tokens > 0
    assert done.usage.cost_usd is None  # an engine at a base_url has no known price
    auto = [e for e in seen if type(e) is CompactionFinished and e.auto]
    assert auto and auto[0].usage is not None
    after = seen[seen.index(auto[0]):]
    completed = next(e for e in after if type(e) is TurnCompleted)
    assert completed.usage is not None
    assert completed.usage.requests == 1 + auto[0].usage.requests  # the turn's and the summary's
    assert completed.usage.output_tokens > auto[0].usage.output_tokens
