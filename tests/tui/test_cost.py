"""``/cost`` and the HUD's total: a line per turn (the deep track's tasks too), per model, the
session's total; a price nobody knows stays unknown in every sum."""

from __future__ import annotations

from spark_cli.session.spend.usage import Usage
from spark_cli.tui.cost import UsageLedger


def test_turns_models_and_the_deep_track_are_summed_apart_and_together() -> None:
    ledger = UsageLedger()
    assert ledger.hud() == "" and ledger.lines() == ["nothing used yet in this session"]
    ledger.add(Usage("gpt-5", 1000, 400, 100, 2, cost_usd=0.002))
    ledger.add(Usage("gpt-5", 3000, 0, 50, 1, cost_usd=0.004))
    ledger.add(Usage("gpt-5", 0, 0, 0, 0))  # nothing was sent: no turn to show
    assert ledger.hud() == "4.2k tok · $0.0060"
    ledger.deep = lambda: [(1, Usage("spark-deep", 500, 0, 500, 1, counted=True))]
    lines = ledger.lines()
    assert lines[:3] == [
        "turn 1 · gpt-5 · 1,000 in (400 cached) · 100 out · $0.0020",
        "turn 2 · gpt-5 · 3,000 in · 50 out · $0.0040",
        "deep #1 · spark-deep · 500 in · 500 out (counted) · cost unknown"]
    assert "gpt-5: 2 turn(s), 3 request(s) · 4,000 in (400 cached) · 150 out · $0.0060" in lines
    assert lines[-1] == ("session total · 4,500 in (400 cached) · 650 out (counted) · "
                         "cost unknown")
    assert ledger.hud() == "5.2k tok · cost ?"


def test_a_compaction_the_user_asked_for_is_its_own_line() -> None:
    ledger = UsageLedger()
    ledger.add(Usage("m", 100, 0, 10, 1, cost_usd=0.5))
    ledger.add(Usage("m", 900, 0, 90, 1, cost_usd=1.0), "/compact")
    ledger.add(Usage("m", 100, 0, 10, 1, cost_usd=0.5))
    lines = ledger.lines()
    assert [line.split(" · ")[0] for line in lines[:3]] == ["turn 1", "/compact", "turn 2"]
    assert lines[-1].endswith("$2.0000")
