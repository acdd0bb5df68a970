"""`spark bench engine`: the table against the targets, the docs section, a tiny real run."""

from __future__ import annotations

from pathlib import Path

from spark_cli.bench.engine import engine as bench
from spark_cli.bench.figures import write_section

FIGURES = {
    "tps": 1500.0, "seconds": 2.0, "streams": 64, "stream_tps": 1000.0, "rate": 1490.0,
    "rate_error": -0.0067, "rate_frames_per_s": 96.0, "ladder": [(5000.0, 4990.0),
    (10000.0, 9000.0)], "single_max": 5000.0, "single_best_measured": 9000.0,
    "many_p50_gap_ms": 11.0, "many_p99_gap_ms": 30.0, "many_max_gap_ms": 40.0,
    "many_min_rate": 990.0, "many_mean_rate": 995.0, "many_total_rate": 63000.0,
    "engine_cpu_share": 0.3,
}


def test_table_marks_each_target() -> None:
    table = bench.table(FIGURES)
    rows = [row for row in table.splitlines() if row.startswith("| ")][1:]
    assert rows[0].endswith("| met |")  # -0.67% is within 2%
    assert rows[1].endswith("| missed |")  # 5,000 < 20,000
    assert rows[2].endswith("| missed |")  # 30 ms > 25 ms
    assert "5,000 → 4,990, 10,000 → 9,000" in table


def test_write_section_replaces_only_its_own(tmp_path: Path) -> None:
    docs = tmp_path / "benchmarks.md"
    docs.write_text("# Benchmarks\n\n## Engine\n\nold\n\n## Edits\n\nkeep me\n")
    write_section(docs, bench.SECTION, "new body")
    assert docs.read_text() == "# Benchmarks\n\n## Engine\n\nnew body\n\n## Edits\n\nkeep me\n"
    missing = tmp_path / "other.md"
    missing.write_text("# Benchmarks\n\n## Edits\n\nx\n")
    write_section(missing, bench.SECTION, "body")
    assert missing.read_text().endswith("## Edits\n\nx\n\n## Engine\n\nbody\n")


def test_a_tiny_real_run_against_a_subprocess_engine() -> None:
    figures = bench.measure(tps=2000, seconds=0.3, streams=3, stream_tps=1000, max_rate=5000)
    assert figures["rate"] > 0
    assert figures["ladder"][0][0] == 5000.0
    assert figures["many_min_rate"] > 0
    assert figures["many_p99_gap_ms"] > 0
    assert "| figure |" in bench.table(figures)
