"""`spark bench deep`: a tiny real run against a subprocess engine, the table, the section."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from spark_cli.bench import deep as bench
from spark_cli.cli.main import app


def test_a_tiny_real_run_compares_the_two_models() -> None:
    figures = bench.measure(1, ["--deep-ttft-ms=300", "--deep-tps=1500", "--ttft-ms=5"])
    assert figures["spark-deep:ttft"] >= 0.300
    assert figures["ttft_ratio"] > 3
    assert figures["spark-deep:files"] == 4  # the rename reaches every caller
    assert figures["spark-rules:files"] == 1  # the file the task names
    table = bench.table(figures)
    assert table.splitlines()[2].startswith("| `spark-deep` | ")
    assert "Medians of 1 run. Deep / fast: TTFT ×" in table


def test_the_command_writes_its_own_section(tmp_path: Path) -> None:
    docs = tmp_path / "benchmarks.md"
    docs.write_text("# Benchmarks\n\n## Engine\n\nkeep me\n")
    result = CliRunner().invoke(app, ["bench", "deep", "--runs", "1", "--docs", str(docs),
                                      "--engine-flag=--deep-ttft-ms=0",
                                      "--engine-flag=--deep-tps=5000"])
    assert result.exit_code == 0, result.output
    text = docs.read_text()
    assert text.startswith("# Benchmarks\n\n## Engine\n\nkeep me\n\n## Deep model pacing\n")
    assert ("Command: `spark bench deep --runs 1 --engine-flag=--deep-ttft-ms=0 "
            "--engine-flag=--deep-tps=5000`") in text
