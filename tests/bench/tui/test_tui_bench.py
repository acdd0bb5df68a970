"""`spark bench tui`: the quick run reports every figure (values not judged); the pure report."""

from __future__ import annotations

import math
import sys

import pytest
import typer

from spark_cli.bench.tui.tui_bench import PHASES, TuiBenchPlan, parse_phases, run_all
from spark_cli.bench.tui.tui_report import rows, table


def _figures(key_p95: float = 12.0, launch_s: float = 0.4) -> dict:
    return {
        "keep": {"last_delta_to_screen_s": 0.02, "scheduled_end_to_screen_s": 0.03,
                 "received_tps": 9990.0},
        "cpu": {"cpu_share": 0.25, "frames_per_s": 30.0, "idle_cpu_share": 0.01},
        "typing": {"turns": 200, "transcript_lines": 5000, "key_fresh_ms": [5.0, key_p95],
                   "key_fresh_lost": 0, "key_late_ms": [6.0, key_p95 * 2], "key_late_lost": 0,
                   "key_deep_ms": [5.5, key_p95], "key_deep_lost": 0,
                   "key_compact_ms": [5.0, key_p95], "key_compact_lost": 0,
                   "key_picker_ms": [5.5, key_p95], "key_picker_lost": 0, "picker_files": 200,
                   "esc_to_final_frame_ms": [3.0, 4.0], "esc_chars_after": 0,
                   "esc_to_turn_end_ms": [9.0], "rss_10": 100 * 2**20, "rss_late": 120 * 2**20,
                   "blocks_10": 1000, "blocks_late": 1600},
        "pty_esc": {"fast": [0.05], "stock": [0.15], "ctrl_c": [0.02]},
        "launch": {"reps": 2, "first_frame_s": launch_s, "first_frame_cpu_s": 0.3,
                   "connected_s": 0.6, "type_ahead_kept": 1},
        "imports": [("textual", 250.0)],
        "resume": {"turns": 500, "held_s": 0.3, "shown_s": 0.35, "lines": 450},
    }


def test_rows_judge_each_target():
    verdicts = {what: verdict for what, _, _, verdict in rows(_figures())}
    assert verdicts["10,000 tok/s: last token received → on screen (median)"] == "met"
    assert verdicts["keystroke → screen while streaming 2,000 tok/s (median / p95)"] == "met"
    late = next(v for w, _, _, v in rows(_figures()) if w.startswith("the same after 200"))
    assert late == "missed"  # 24 ms p95
    memory = next(v for w, _, _, v in rows(_figures()) if w.startswith("memory"))
    assert memory == "missed"  # heap blocks × 1.6
    assert verdicts["pty: keys typed right after spawn that reached the prompt"] == "missed"
    launch = rows(_figures(launch_s=0.7))
    assert ("missed" in [v for w, _, _, v in launch if w.startswith("pty: `spark` launch → first")])


def test_table_names_the_imports():
    assert "textual 250" in table(_figures())


def test_plan_command_names_only_changed_sizes():
    assert TuiBenchPlan().command() == "spark bench tui"
    assert TuiBenchPlan(samples=50).command() == "spark bench tui --samples 50"
    assert TuiBenchPlan.quick().command() == "spark bench tui --quick"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty and /proc: Linux only")
@pytest.mark.timeout(300)
def test_quick_run_reports_every_figure():
    figures = run_all(TuiBenchPlan.quick())
    rendered = rows(figures)
    assert len(rendered) == len(rows(_figures()))  # memory included: every figure is there
    for what, measured, _, _ in rendered:
        assert measured and "nan" not in measured, what
    assert figures["typing"]["key_fresh_ms"] and figures["typing"]["esc_to_final_frame_ms"]
    assert all(not math.isnan(v) for v in figures["pty_esc"]["fast"])


def test_rows_cover_only_the_phases_that_ran():
    figures = {name: value for name, value in _figures().items() if name in ("keep", "cpu")}
    whats = [what for what, _, _, _ in rows(figures)]
    assert len(whats) == 3 and whats[-1].startswith("CPU while rendering")
    assert "textual" not in table(figures)


def test_only_picks_phases_in_order_and_refuses_unknown_ones():
    assert parse_phases(None) == PHASES
    assert parse_phases("typing, keep") == ("keep", "typing")
    with pytest.raises(typer.BadParameter, match="--only: fast"):
        parse_phases("typing,fast")
    with pytest.raises(typer.BadParameter):
        parse_phases(" , ")
