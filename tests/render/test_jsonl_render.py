"""JsonLinesRenderer: one parseable object per line; the schema is complete and documented."""

from __future__ import annotations

import io
import json
import re
import typing
from pathlib import Path

from spark_cli.edits.model.outcome import EditApplied, RefusedEdit
from spark_cli.render.jsonl import CLI_TYPES, EVENT_TYPES, JsonLinesRenderer, event_to_json
from spark_cli.session import events as ev
from spark_cli.session.events import (
    BlockRejected,
    EditLanded,
    EditRefused,
    ProseDelta,
    Queued,
    Reconnected,
    RequestSent,
    SessionEvent,
    SteerAccepted,
    Steered,
    SteerRejected,
    ToolCallFinished,
    ToolCallStarted,
    ToolLoopStopped,
    TurnCompleted,
    TurnFailed,
    UsageReported,
    WaitingToRetry,
)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cli.md"

ONE_OF_EACH: list[SessionEvent] = [
    RequestSent(at=1.5),
    Queued(position=2),
    WaitingToRetry(seconds=1.0, reason="rate limited", attempt=1),
    Reconnected(reason="dropped"),
    ProseDelta("hi"),
    EditLanded(EditApplied("app.py", 1, "--- a\n")),
    EditRefused(RefusedEdit("b.py", "ambiguous", 1, "b.py: 2 matches")),
    BlockRejected("expected =======", 3, "c.py", "raw"),
    SteerAccepted(),
    SteerRejected(code="no_response", message="nothing to steer"),
    Steered(previous_response_id="r1", response_id="r2"),
    UsageReported(input_tokens=10, output_tokens=20),
    ToolCallStarted("call_1", "search", '{"pattern": "TAX"}', "search TAX"),
    ToolCallFinished("call_1", "search", '{"pattern": "TAX"}', "search TAX", True, "3 hits",
                     "a.py:1:TAX = 1\n", 0.4, "search TAX → 3 hits"),
    ToolLoopStopped("stopped: the model made 40 tool calls in this turn (max_tool_calls)", 40, 2),
    ev.HookWarning("PreToolUse", "lint.sh", "timed out after 10 s and was killed"),
    ev.CommandStarted("call_9", "pytest -q", "/repo", True),
    ev.CommandOutput("call_9", "1 passed in 0.01s\n"),
    ev.CommandFinished("call_9", "pytest -q", "exit", 0, 0.5, "exit 0 · 0.5 s\n1 passed",
                       "pytest -q → exit 0 · 0.5 s"),
    ev.CompactionStarted(6500, 8000, True),
    ev.CompactionFinished("compacted", 6500, 1000, 8000, 1.4, "context 81% → 12% · compacted "
                          "6 turns in 1.4 s", 6, True),
    TurnCompleted("completed", None, 0.01, 20, 2000.0, 1, 1, 0.2),
    TurnFailed("auth", "the key was refused"),
]


def _documented() -> dict[str, str]:
    """type -> its fields cell, from the schema table in docs/cli.md."""
    table = re.split(r"\n##+ ", DOCS.read_text().split("### `--json`: the event schema", 1)[1],
                     maxsplit=1)[0]
    rows = re.findall(r"^\| `([a-z_]+)` \| (.*?) \|", table, re.M)
    return dict(rows)


def test_every_session_event_has_a_json_type():
    assert set(EVENT_TYPES) == set(typing.get_args(SessionEvent))
    assert {type(e) for e in ONE_OF_EACH} == set(EVENT_TYPES)


def test_the_schema_is_the_documented_one():
    documented = _documented()
    assert set(documented) == set(EVENT_TYPES.values()) | set(CLI_TYPES)
    for event in ONE_OF_EACH:
        data = event_to_json(event)
        cell = documented[data["type"]]
        named = set(re.findall(r"`([a-z_]+)`", cell.split("(")[0])) | set(
            re.findall(r"(?:^|, )(?:optional )?`([a-z_]+)`", cell))
        missing = set(data) - {"type"} - named
        assert not missing, f"{data['type']}: fields not in docs/cli.md: {missing}"


def test_every_line_parses():
    out = io.StringIO()
    r = JsonLinesRenderer(out)
    r.request_sent(12.5)
    r.prose('say "hi"\n\tand \\ more')
    for event in ONE_OF_EACH[5:7] + ONE_OF_EACH[-2:-1]:
        r.event(event)
    r.diff("app.py", "--- a\n")
    r.summary({"applied": 1, "refused": 1, "exit_code": 1})
    objects = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [o["type"] for o in objects] == [
        "request_sent", "prose_delta", "edit_applied", "edit_refused", "turn_completed",
        "diff", "summary",
    ]
    assert objects[1]["text"] == 'say "hi"\n\tand \\ more'
    assert objects[2]["path"] == "app.py" and objects[2]["hunks"] == 1
    assert objects[3]["reason"] == "ambiguous"
    assert objects[4] == {"type": "turn_completed", "status": "completed", "reason": None,
                          "ttft_s": 0.01, "output_tokens": 20, "tokens_per_s": 2000.0,
                          "applied": 1, "refused": 1, "duration_s": 0.2, "dropped_blocks": 0,
                          "time_info": None, "tool_calls": 0, "tool_time_s": 0.0,
                          "usage": None}


def test_tool_calls_are_lines_with_their_ids_and_times():
    out = io.StringIO()
    r = JsonLinesRenderer(out)
    for event in ONE_OF_EACH:
        if type(event).__name__.startswith("Tool"):
            r.event(event)
    started, finished, stopped = (json.loads(line) for line in out.getvalue().splitlines())
    assert started == {"type": "tool_call_started", "call_id": "call_1", "name": "search",
                       "arguments": '{"pattern": "TAX"}', "label": "search TAX", "server": None}
    assert finished["type"] == "tool_call_finished" and finished["call_id"] == "call_1"
    assert (finished["ok"], finished["summary"], finished["ms"]) == (True, "3 hits", 0.4)
    assert stopped["type"] == "tool_loop_stopped" and stopped["not_run"] == 2
