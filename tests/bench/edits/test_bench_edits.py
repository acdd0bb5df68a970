"""`spark bench edits`: the benchmark runs end to end and owns only its docs section."""

from __future__ import annotations

from spark_cli.bench.edits.edits import SECTION, run_benchmark, table
from spark_cli.bench.figures import write_section


def test_run_benchmark_small(tmp_path) -> None:
    figures = run_benchmark(3, 50, tmp_path)
    assert figures["lines"] == 50 and figures["runs"] == 3
    for key in ("check_median", "write_median", "journal_median"):
        assert figures[key] > 0
    text = table(figures)
    assert text.startswith("3 runs on a 50-line Python file") and "| in memory" in text


def test_write_section_replaces_only_its_own(tmp_path) -> None:
    docs = tmp_path / "benchmarks.md"
    docs.write_text("# Benchmarks\n\n## Engine\n\nE\n\n## Edits\n\nold\n\n## Transport\n\nT\n")
    write_section(docs, SECTION, "new\n")
    write_section(docs, SECTION, "newer\n")
    assert docs.read_text() == (
        "# Benchmarks\n\n## Engine\n\nE\n\n## Edits\n\nnewer\n\n## Transport\n\nT\n")
    missing = tmp_path / "other.md"
    write_section(missing, SECTION, "x\n")
    assert missing.read_text() == "# Benchmarks\n\n## Edits\n\nx\n"
