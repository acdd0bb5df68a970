"""TextRenderer: raw streamed prose, a line per edit, diff, summary; rich only for colour."""

from __future__ import annotations

import io
import subprocess
import sys

from spark_cli.edits.model.outcome import EditApplied, RefusedEdit
from spark_cli.render.text import TextRenderer, summary_line
from spark_cli.session.events import (
    BlockRejected,
    EditLanded,
    EditRefused,
    HookWarning,
    Queued,
    Reconnected,
    ToolCallFinished,
    ToolLoopStopped,
    WaitingToRetry,
)

DIFF = "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-old\n+new\n"


def test_prose_then_edit_line_starts_on_its_own_line():
    out = io.StringIO()
    r = TextRenderer(out)
    r.prose("Renaming the")
    r.prose(" function.")
    r.event(EditLanded(EditApplied("app.py", 1, DIFF)))
    r.prose("Done.\n")
    text = out.getvalue()
    assert text.startswith("Renaming the function.\n[+] app.py: applied 1 hunk(s)\n")
    assert text.endswith("Done.\n")


def test_refusal_and_waits_are_reported():
    out = io.StringIO()
    r = TextRenderer(out)
    r.event(EditRefused(RefusedEdit("app.py", "not_found", 1, "app.py: hunk 1 not found")))
    r.event(Queued(position=3))
    r.event(WaitingToRetry(seconds=2.5, reason="rate limited (429)", attempt=2))
    r.event(Reconnected(reason="the connection dropped"))
    r.event(BlockRejected("expected =======", 4, "app.py", ""))
    text = out.getvalue()
    assert "[x] refused: app.py: hunk 1 not found" in text
    assert "position 3" in text
    assert "waiting 2.5 s before retry 2 (rate limited (429))" in text
    assert "reconnected (the connection dropped)" in text
    assert "[x] malformed edit block: expected =======" in text


def test_prose_and_info_can_go_to_different_streams():
    prose, info = io.StringIO(), io.StringIO()
    r = TextRenderer(prose, info)
    r.prose("hello")
    r.diff("app.py", DIFF)
    r.summary({"ttft_s": 0.05, "tokens_per_s": 1999.6, "output_tokens": 5000, "applied": 1,
               "refused": 0, "duration_s": 2.6, "status": "completed"})
    assert prose.getvalue() == "hello\n"
    assert info.getvalue().startswith(DIFF)
    expected = "TTFT 50 ms · 2,000 tok/s · 5,000 tokens · 1 applied, 0 refused · 2.60 s"
    assert expected in info.getvalue()


def test_summary_line_mentions_incomplete_and_dry_run():
    line = summary_line({"status": "incomplete", "reason": "max_output_tokens", "dry_run": True})
    assert "incomplete (max_output_tokens)" in line
    assert "dry run" in line
    assert "TTFT -" in line


def test_colour_uses_rich_and_keeps_the_text():
    out = io.StringIO()
    r = TextRenderer(out, color=True)
    r.diff("app.py", DIFF)
    assert "+new" in out.getvalue()


def test_plain_rendering_never_imports_rich():
    code = (
        "import io, sys\n"
        "from spark_cli.render.text import TextRenderer\n"
        "r = TextRenderer(io.StringIO())\n"
        "r.prose('x'); r.diff('a', '--- a/a\\n+++ b/a\\n'); r.summary({})\n"
        "print('rich' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == "False"


def test_summary_of_a_failed_turn_is_short():
    line = summary_line({"status": "failed", "reason": "cannot connect", "applied": 1})
    assert line == "turn failed · 1 applied, 0 refused"


def test_summary_line_shows_the_providers_own_timing_when_sent():
    from spark_cli.render.text import summary_line

    line = summary_line({"status": "completed", "ttft_s": 0.05, "tokens_per_s": 2000.0,
                         "output_tokens": 300, "applied": 1, "refused": 0, "duration_s": 0.3,
                         "time_info": {"queue_time": 0.0012, "prompt_time": 0.004,
                                       "completion_time": 0.15, "created": 1.7e9}})
    assert line.endswith("server: queue 1 ms, prompt 4 ms, completion 150 ms")
    assert "server:" not in summary_line({"status": "completed", "time_info": None})


def test_each_tool_call_is_one_line_on_the_calls_stream():
    out, err = io.StringIO(), io.StringIO()
    r = TextRenderer(out, color=False, calls_out=err)
    r.prose("Looking.")
    r.event(ToolCallFinished("c1", "search", '{"pattern": "TAX_RATE"}', "search TAX_RATE", True,
                             "3 hits", "...", 0.3, "search TAX_RATE → 3 hits"))
    r.event(ToolCallFinished("c2", "read_file", "{", "read_file {", False, "error: bad arguments",
                             "error", 0.1, "read_file { → error: bad arguments"))
    r.event(ToolLoopStopped("stopped: the model made 40 tool calls in this turn "
                            "(max_tool_calls)", 40, 1))
    r.event(HookWarning("PreToolUse", "lint.sh", "failed (exit 1)"))
    assert err.getvalue().splitlines() == [
        "search TAX_RATE → 3 hits", "read_file { → error: bad arguments",
        "stopped: the model made 40 tool calls in this turn (max_tool_calls)",
        "warning: hook PreToolUse 'lint.sh': failed (exit 1)"]
    assert out.getvalue() == "Looking.\n"


def test_the_summary_counts_tool_calls():
    line = summary_line({"ttft_s": 0.05, "tokens_per_s": 1500.0, "output_tokens": 300,
                         "applied": 1, "refused": 0, "duration_s": 0.4, "tool_calls": 2,
                         "tool_time_s": 0.0012})
    assert "2 tool calls (1 ms in spark)" in line
