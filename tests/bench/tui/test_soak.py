"""`spark bench soak` runs: a few turns on the bundled engine, rows sampled (no figures judged)."""

from __future__ import annotations

from spark_cli.bench.tui.soak import run_soak, verdict


def test_a_short_soak_samples_rss_and_keys() -> None:
    figures = run_soak(turns=4, every=2, samples=2)
    rows = figures["rows"]
    assert [row["turn"] for row in rows] == [2, 4]
    assert rows[-1]["edits"] >= 1
    assert all(row["rss_mb"] > 0 for row in rows)
    assert "turns changed the file" in verdict(rows)
