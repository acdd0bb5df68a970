"""The figures every bench shares: percentiles and the report it prints and writes."""

from __future__ import annotations

import math
from pathlib import Path

from spark_cli.bench.figures import median_p95, percentile, report


def test_p95_is_a_value_of_the_list() -> None:
    assert percentile([float(v) for v in range(1, 101)], 0.95) == 95.0
    assert percentile([3.0], 0.95) == 3.0
    assert math.isnan(percentile([], 0.5))
    assert median_p95([1.0, 2.0, 3.0]) == (2.0, 3.0)


def test_the_report_writes_the_command_and_the_table(tmp_path: Path) -> None:
    docs = tmp_path / "b.md"
    report("| a |\n|---|", "spark bench x", "## X", docs, no_docs=False)
    assert docs.read_text() == "# Benchmarks\n\n## X\n\nCommand: `spark bench x`\n\n| a |\n|---|\n"
    report("| b |", "spark bench y", "## Y", docs, no_docs=True)
    assert "## Y" not in docs.read_text()
