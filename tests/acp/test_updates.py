"""Session events as ACP updates: an edit's hunks as diffs, a turn's end as a stop reason."""

from __future__ import annotations

from pathlib import Path

from spark_cli.acp.updates import TurnUpdates, before, hunks, stop_reason
from spark_cli.edits.apply.diffs import unified_diff
from spark_cli.session import events as ev

DIFF = """--- a/a.py
+++ b/a.py
@@ -1,3 +1,3 @@
-def old():
+def new():
     pass
 x = 1
@@ -10,2 +10,3 @@ def g():
 y = old()
+z = 2
"""


def _done(status: str, reason: str | None = None) -> ev.TurnCompleted:
    return ev.TurnCompleted(status, reason, None, 0, None, 0, 0, 0.0)  # type: ignore[arg-type]


def test_each_hunk_is_its_old_and_new_text_with_its_first_new_line():
    assert hunks(DIFF) == [(1, "def old():\n    pass\nx = 1\n", "def new():\n    pass\nx = 1\n"),
                           (10, "y = old()\n", "y = old()\nz = 2\n")]
    assert hunks("") == []


def test_stop_reasons_map_spark_endings():
    assert stop_reason(_done("completed"), False) == "end_turn"
    assert stop_reason(_done("completed"), True) == "cancelled"
    assert stop_reason(_done("cancelled", "interrupted"), False) == "cancelled"
    assert stop_reason(_done("incomplete", "max_output_tokens"), False) == "max_tokens"
    assert stop_reason(_done("incomplete", "max_tool_calls"), False) == "max_turn_requests"
    assert stop_reason(_done("incomplete", "content_filter"), False) == "refusal"


def test_an_edit_is_a_completed_edit_call_and_a_created_file_has_no_old_text(tmp_path: Path):
    updates = TurnUpdates(tmp_path)
    edit = updates.of(ev.EditLanded(ev.EditApplied("a.py", 2, DIFF)))
    assert edit.kind == "edit" and edit.status == "completed" and len(edit.content) == 2
    assert edit.locations[0].path == str(tmp_path / "a.py") and edit.locations[0].line == 1
    created = updates.of(ev.EditLanded(ev.EditApplied(
        "n.py", 1, "--- /dev/null\n+++ b/n.py\n@@ -0,0 +1 @@\n+x = 1\n", created=True)))
    assert created.content[0].old_text is None and created.content[0].new_text == "x = 1\n"
    assert created.tool_call_id != edit.tool_call_id


def test_a_refused_edit_and_a_bad_read_call_fail_visibly(tmp_path: Path):
    updates = TurnUpdates(tmp_path)
    refused = updates.of(ev.EditRefused(ev.RefusedEdit("a.py", "not_found", 1,
                                                          "the SEARCH text is not in a.py")))
    assert refused.status == "failed" and "not in a.py" in refused.title
    started = updates.of(ev.ToolCallStarted("c1", "read_file", "{not json", "read ?"))
    assert started.kind == "read" and started.locations is None
    assert updates.of(ev.UsageReported(1, 2, None)) is None


def test_before_undoes_a_diff_and_refuses_one_that_does_not_fit():
    old = "".join(f"line {n}\n" for n in range(1, 30))
    new = old.replace("line 2\n", "").replace("line 15\n", "line 15\nadded\n") \
        .replace("line 28", "changed")
    diff = unified_diff("a.py", old, new)
    assert before(new, diff) == old
    assert before(new.replace("added", "typed"), diff) is None
    assert before("", unified_diff("a.py", "x\n", "")) == "x\n"
