"""Saved conversations by id: turns kept as they were (also those a summary replaced), the
list newest first, fork, opening one by id, the legacy file, bad turns, pruning."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from spark_cli.protocol.channel import Message, ToolCall, ToolOutput
from spark_cli.session.workspace import store as store_module
from spark_cli.session.workspace.store import SessionStore
from spark_cli.session.workspace.turns import TurnRecord, rewound

ONE = (Message("user", "files…\nrename x"), Message("assistant", "done"))
TWO = (Message("user", "files…\nexplain"), ToolCall("c1", "read_file", "{}"),
       ToolOutput("c1", "x = 1"), Message("assistant", "it sets x"))
TURNS = (TurnRecord("rename x", 100.0, ONE, ("20261207T000000-abcdef",), ("x.py",), (), 0),
         TurnRecord("explain", 200.0, TWO, (), (), ("out.txt",), 4))


def _saved(store: SessionStore, session_id: str | None = None) -> Path:
    """The file a store saves conversation ``session_id`` (default: its own) to."""
    return store.folder / "conversations" / f"{session_id or store.session_id}.json"


def _store(tmp_path: Path) -> SessionStore:
    (tmp_path / "repo").mkdir(exist_ok=True)
    return SessionStore(tmp_path / "repo", tmp_path / "state")


def test_turns_round_trip_with_their_items_the_very_ones_of_the_conversation(
        tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save_conversation([*ONE, *TWO], provider="p", model="m", turns=TURNS)
    raw = json.loads(_saved(store).read_text())
    assert [t["at"] for t in raw["turns"]] == [0, 2]
    assert [t["items"] for t in raw["turns"]] == [2, 4]  # not written twice
    saved = SessionStore(store.root, store.folder).load_conversation()
    assert saved is not None and saved.turns == TURNS and saved.id == store.session_id
    assert saved.turns[1].items[0] is saved.history[2]
    assert rewound(saved.history, saved.turns, 1) == list(ONE)


def test_a_turn_a_summary_replaced_is_kept_whole_and_rewinds_from_its_record(
        tmp_path: Path) -> None:
    store = _store(tmp_path)
    summary = Message("user", "Summary: x was renamed.")
    history = [summary, *TWO]
    store.save_conversation(history, provider="p", model="m", turns=TURNS)
    raw = json.loads(_saved(store).read_text())
    assert raw["turns"][0]["at"] == -1 and len(raw["turns"][0]["items"]) == 2
    saved = store.load_conversation()
    assert saved is not None and saved.history == tuple(history)
    assert saved.turns[0].items == ONE
    assert rewound(saved.history, saved.turns, 0) == []
    assert rewound(saved.history, saved.turns, 1) == [summary]


def test_conversations_are_listed_newest_first_and_opened_by_id(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save_conversation(list(ONE), provider="p", model="m", turns=TURNS[:1])
    first = store.session_id
    second = store.fork()
    assert second != first
    store.save_conversation([*ONE, *TWO], provider="p", model="m", turns=TURNS)
    os.utime(_saved(store, first), (1, 1))  # mtime plays no part in the order
    listed = SessionStore(store.root, store.folder).list_conversations()
    assert [(i.id, i.messages, i.first) for i in listed] == [
        (second, 6, "rename x"), (first, 2, "rename x")]
    again = SessionStore(store.root, store.folder)
    saved = again.load_conversation(first)
    assert saved is not None and len(saved.history) == 2 and again.session_id == first
    newest = SessionStore(store.root, store.folder).load_conversation()
    assert newest is not None and newest.id == second


@pytest.mark.parametrize("wanted", ["20990101-000000-0000", "../evil", ".hidden", ""])
def test_an_unknown_or_unsafe_id_opens_nothing(tmp_path: Path, wanted: str) -> None:
    store = _store(tmp_path)
    store.save_conversation(list(ONE), provider="p", model="m")
    evil = store.folder / "evil.json"  # a well-formed file outside the conversations' folder
    evil.write_bytes(_saved(store).read_bytes())
    other = SessionStore(store.root, store.folder)
    assert other.load_conversation(wanted) is None
    assert other.take_problems() == [] and other.session_id != "../evil"


def test_the_conversation_saved_before_ids_is_listed_and_opens(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save_conversation(list(ONE), provider="p", model="m")
    store.folder.joinpath("conversation.json").write_bytes(_saved(store).read_bytes())
    _saved(store).unlink()
    listed = store.list_conversations()
    assert [i.id for i in listed] == ["conversation"]
    saved = store.load_conversation()
    assert saved is not None and saved.history == ONE and store.session_id == "conversation"


@pytest.mark.parametrize("turn", [
    {"text": "x", "time": 1.0, "at": 0, "items": 9},  # more items than the conversation has
    {"text": "x", "time": 1.0, "at": 0, "items": []},
    {"text": 3, "time": 1.0, "at": 0, "items": 1},
    {"text": "x", "time": 1.0, "at": 0, "items": 1, "edited": [1]},
    "a turn",
])
def test_a_bad_turn_sets_the_file_aside(tmp_path: Path, turn: object) -> None:
    store = _store(tmp_path)
    store.save_conversation(list(ONE), provider="p", model="m")
    path = _saved(store)
    raw = json.loads(path.read_text())
    raw["turns"] = [turn]
    path.write_text(json.dumps(raw))
    assert store.load_conversation(store.session_id) is None
    assert any("turn 1 is not" in p or "turns" in p for p in store.take_problems())
    assert path.with_name(path.name + ".corrupt").exists()


def test_only_the_newest_conversations_are_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "MAX_SESSIONS", 2)
    store = _store(tmp_path)
    ids = []
    for n in range(3):
        ids.append(store.fork())
        store.save_conversation(list(ONE), provider="p", model="m")
        os.utime(_saved(store), (n + 1, n + 1))
    assert sorted(p.stem for p in _saved(store).parent.iterdir()) == sorted(ids[1:])
