"""Compaction as data: the split, the view the model gets, the ledger spark writes, and the
WebSocket chain that starts anew after it."""

from __future__ import annotations

import json
from pathlib import Path

from spark_cli.protocol.channel import Message, ToolCall, ToolOutput, TurnRequest
from spark_cli.protocol.summaries import Compaction
from spark_cli.session.config.settings import load_settings
from spark_cli.session.window.compaction import (
    apply_shortened,
    model_view,
    split_at,
    summary_message,
)
from spark_cli.session.window.ledger import ledger
from spark_cli.transport.ws.ws_wire import Chain, create_payload

EDIT = ("I will change it.\n\napp.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n"
        ">>>>>>> REPLACE\n```\n")


def _turn(n: int) -> list[Message]:
    return [Message("user", f"ask {n}"), Message("assistant", f"answer {n}")]


def test_the_split_keeps_the_last_turns_whole_and_the_view_starts_with_the_summary() -> None:
    history = [item for n in range(5) for item in _turn(n)]
    assert split_at(history, None, 2) == 6
    assert split_at(history[:4], None, 2) is None  # nothing before the kept turns
    folded = Compaction("[summary]", 6)
    assert split_at(history, folded, 2) is None  # nothing new since
    assert model_view(history, folded) == (Message("user", "[summary]"), *history[6:])
    assert model_view(history, Compaction("", 6)) == tuple(history[6:])


def test_dropping_after_a_compaction_keeps_every_turn_in_the_history() -> None:
    history: list = [item for n in range(5) for item in _turn(n)]
    kept = list(history)
    folded = Compaction("[summary]", 4)
    view = model_view(history, folded)
    assert apply_shortened(history, folded, view) == folded and history == kept
    after = apply_shortened(history, folded, view[3:])  # the summary and one turn left out
    assert after == Compaction("", 6) and history == kept


def test_the_ledger_rereads_edited_files_and_lists_commands_and_asks(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("x = 3  # changed since\n")
    call = ToolCall("c1", "run_command", json.dumps({"command": "pytest -q"}))
    items = [Message("user", "app.py\n```python\nx = 1\n```\nmake x two"),
             Message("assistant", EDIT), call, ToolOutput("c1", "exit 1 · 0.4 s\n1 failed")]
    text = ledger(items, tmp_path, 500)
    assert "- make x two" in text and "Files edited: app.py" in text
    assert "`pytest -q` → exit 1 · 0.4 s" in text
    assert "x = 3  # changed since" in text and "x = 2" not in text.split("re-read")[1]
    assert "changed since" not in ledger(items, tmp_path, 500, keep=[
        Message("user", "\napp.py\n```python\nx = 3\n```\nagain")])  # re-sent: not twice
    assert "(not shown, no room left: app.py)" in ledger(items, tmp_path, 10)


def test_the_summary_message_carries_the_ledger(tmp_path: Path) -> None:
    settings = load_settings(tmp_path, {}, {"SPARK_CONFIG_DIR": str(tmp_path / "cfg")})
    history = [item for n in range(4) for item in _turn(n)]
    text, cut = summary_message(settings, tmp_path, history, None, 4, "They asked twice.")
    assert not cut and "They asked twice." in text and "- ask 0\n- ask 1" in text


def test_the_websocket_starts_a_new_chain_after_a_compaction() -> None:
    history = [item for n in range(4) for item in _turn(n)]
    chain = Chain("resp_9", tuple(history))
    more = TurnRequest("m", (*history, Message("user", "next")))
    assert json.loads(create_payload(more, chain))["previous_response_id"] == "resp_9"
    after = TurnRequest("m", (*model_view(history, Compaction("[s]", 4)),
                              Message("user", "next")))
    body = json.loads(create_payload(after, chain))
    assert "previous_response_id" not in body and len(body["input"]) == 6
