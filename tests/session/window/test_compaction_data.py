"""A compaction's parts: the split, the ledger spark writes, the summary message, and the
WebSocket chain that starts anew after it."""

from __future__ import annotations

import json
from pathlib import Path

from spark_cli.protocol.channel import Message, ToolCall, ToolOutput, TurnRequest
from spark_cli.protocol.summaries import SUMMARY_HEAD
from spark_cli.session.config.settings import load_settings
from spark_cli.session.window.compaction import ledger, split_at, summary_message
from spark_cli.transport.ws_wire import Chain, create_payload

EDIT = ("I will change it.\n\napp.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n"
        ">>>>>>> REPLACE\n```\n")


def _turn(n: int) -> list[Message]:
    return [Message("user", f"ask {n}"), Message("assistant", f"answer {n}")]


def test_the_split_keeps_the_last_turns_whole_and_an_earlier_summary_is_no_turn() -> None:
    history = [item for n in range(5) for item in _turn(n)]
    assert split_at(history, 2) == 6 and split_at(history, 0) == 10
    assert split_at(history[:4], 2) is None  # nothing before the kept turns
    folded = [Message("user", f"{SUMMARY_HEAD}\nearlier"), *history[6:]]
    assert split_at(folded, 2) is None  # nothing new since the last compaction
    assert split_at([*folded, *_turn(5)], 2) == 3
    assert split_at(folded[:1], 0) is None  # a summary alone: nothing to fold


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
    outside = [Message("assistant", EDIT.replace("app.py", "../secret.py"))]
    (tmp_path.parent / "secret.py").write_text("x = 1  # outside the repo\n")
    assert "outside the repo" not in ledger(outside, tmp_path, 500)


def test_the_summary_message_carries_the_ledger(tmp_path: Path) -> None:
    settings = load_settings(tmp_path, {}, {"SPARK_CONFIG_DIR": str(tmp_path / "cfg")})
    history = [item for n in range(4) for item in _turn(n)]
    text, cut = summary_message(settings, tmp_path, history, 4, "They asked twice.")
    assert not cut and text.startswith(SUMMARY_HEAD) and "They asked twice." in text
    assert "- ask 0\n- ask 1" in text


def test_the_websocket_starts_a_new_chain_after_a_compaction() -> None:
    history = [item for n in range(4) for item in _turn(n)]
    chain = Chain("resp_9", tuple(history))
    more = TurnRequest("m", (*history, Message("user", "next")))
    assert json.loads(create_payload(more, chain))["previous_response_id"] == "resp_9"
    after = TurnRequest("m", (Message("user", "[s]"), *history[4:], Message("user", "next")))
    body = json.loads(create_payload(after, chain))
    assert "previous_response_id" not in body and len(body["input"]) == 6
