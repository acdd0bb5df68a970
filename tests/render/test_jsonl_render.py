"""JsonLinesRenderer: one parseable object per line, snake_case types, outcomes as spark apply."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass

from spark_cli.edits.model.outcome import EditApplied, EditRefused
from spark_cli.render.jsonl import JsonLinesRenderer, event_to_json, type_name


@dataclass(frozen=True)
class EditLanded:
    outcome: EditApplied


@dataclass(frozen=True)
class TurnCompleted:
    status: str
    ttft_s: float | None
    applied: int


def test_type_names_are_snake_case():
    assert type_name(EditLanded) == "edit_landed"
    assert type_name(TurnCompleted) == "turn_completed"


def test_every_line_parses():
    out = io.StringIO()
    r = JsonLinesRenderer(out)
    r.request_sent(12.5)
    r.prose('say "hi"\n\tand \\ more')
    r.event(EditLanded(EditApplied("app.py", 1, "--- a\n")))
    r.event(EditRefused("b.py", "ambiguous", 1, "b.py: 2 matches"))
    r.event(TurnCompleted("completed", 0.01, 1))
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
    assert objects[4] == {"type": "turn_completed", "status": "completed", "ttft_s": 0.01,
                          "applied": 1}


def test_unknown_values_become_strings():
    @dataclass
    class Odd:
        value: object

    assert event_to_json(Odd(value=complex(1, 2))) == {"type": "odd", "value": "(1+2j)"}
