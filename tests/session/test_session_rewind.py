"""A session's turn records (message, undo batch, files) and its conversation rewind, also of
a turn a summary replaced; the code as before the first turn through the records."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from session_fakes import ResponsesChannel, ScriptedChannel

from spark_cli.edits.disk.journal import history
from spark_cli.protocol.channel import Message, ToolCall, ToolCallCompleted, ToolCallOpened
from spark_cli.session.config.settings import load_settings
from spark_cli.session.config.state_dir import undo_dir
from spark_cli.session.conversation import Session
from spark_cli.session.workspace.changes import rewind_turns
from spark_cli.session.workspace.turns import rewound

APP = "def total_price(items):\n    return sum(items)\n"
RENAME = ("app.py\n<<<<<<< SEARCH\ndef total_price(items):\n=======\n"
          "def cart_total(items):\n>>>>>>> REPLACE\n")
OR_ZERO = ("app.py\n<<<<<<< SEARCH\n    return sum(items)\n=======\n"
           "    return sum(items) or 0\n>>>>>>> REPLACE\n")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(APP)
    return tmp_path


async def _turn(session: Session, channel: ScriptedChannel, text: str) -> None:
    session.attach(channel)
    async with asyncio.timeout(10):
        _ = [event async for event in session.run_turn(text, ["app.py"])]


async def _two_turns(repo: Path) -> Session:
    settings = load_settings(repo, {}, {"SPARK_CONFIG_DIR": str(repo / ".none")})
    session = Session(None, repo, settings)
    await _turn(session, ScriptedChannel(["Renaming.\n", RENAME]), "rename total_price")
    await _turn(session, ScriptedChannel(["Safer.\n", OR_ZERO]), "make it return 0 when empty")
    await _turn(session, ScriptedChannel(["Nothing to change.\n"]), "explain it")
    return session


async def test_each_turn_records_its_message_batch_and_files(repo: Path) -> None:
    session = await _two_turns(repo)
    turns = session.turns
    assert [t.text for t in turns] == ["rename total_price", "make it return 0 when empty",
                                       "explain it"]
    batches = [b.id for b in history(undo_dir(repo))]
    assert [t.batches for t in turns] == [(batches[1],), (batches[0],), ()]
    assert [t.edited for t in turns] == [("app.py",), ("app.py",), ()]
    assert [item for t in turns for item in t.items] == session.history
    assert turns[0].time <= turns[1].time <= turns[2].time


async def test_code_rewind_to_the_first_turn_then_its_conversation(repo: Path) -> None:
    session = await _two_turns(repo)
    report = rewind_turns(repo, session.turns, 0)
    assert report.status == "rewound" and (repo / "app.py").read_text() == APP
    text = session.rewind(1)
    assert text == "make it return 0 when empty"
    assert session.history == list(session.turns[0].items) and len(session.turns) == 1
    assert session.rewind(0) == "rename total_price"
    assert session.history == [] and session.turns == []


async def test_a_turn_folded_into_a_summary_is_rebuilt_from_the_records(repo: Path) -> None:
    session = await _two_turns(repo)
    first, _, third = session.turns
    summary = Message("user", "Summary of the earlier conversation: app.py renamed.")
    session.history[:] = [summary, *third.items]  # what a compaction leaves
    assert rewound(session.history, session.turns, 2) == [summary]  # later turn: summary kept
    assert rewound(session.history, session.turns, 1) == list(first.items)  # folded: rebuilt
    session.rewind(1)
    assert session.history == list(first.items) and session.turns == [first]


async def test_a_conversation_rewind_sends_the_files_again(repo: Path) -> None:
    session = await _two_turns(repo)
    session.rewind(0)
    channel = ScriptedChannel(["ok\n"])
    await _turn(session, channel, "look again")
    request: Any = channel.requests[0]
    assert "def cart_total" in str(request.messages[-1].content)  # the file is sent in full


async def test_files_a_command_changed_are_in_the_turn_and_listed_as_not_restorable(
        repo: Path) -> None:
    script = [ToolCallOpened("c1", "run_command"),
              ToolCallCompleted(ToolCall("c1", "run_command",
                                         json.dumps({"command": "echo c > made.txt"})))]
    settings = load_settings(repo, {}, {"SPARK_CONFIG_DIR": str(repo / ".none")})
    session = Session(ResponsesChannel([script, ["Done.\n"]]), repo, settings)

    async def yes(request: Any, /) -> Any:
        return "once"

    session.set_approver(yes)
    async with asyncio.timeout(30):
        _ = [event async for event in session.run_turn("build it", [])]
    assert session.turns[0].commands == ("made.txt",)
    report = rewind_turns(repo, session.turns, 0)
    assert report.status == "nothing" and report.not_restorable == ("made.txt",)
    assert (repo / "made.txt").read_text() == "c\n"
