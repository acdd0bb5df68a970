"""The figures every bench shares: percentiles and the report it prints and writes."""

from __future__ import annotations

import math
from pathlib import Path

import typer
from typer.testing import CliRunner

from spark_cli.bench.figures import bench_command, median_p95, percentile, report


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


def _bench_app(run) -> typer.Typer:
    app = typer.Typer()
    bench_command("x", "## X", run)(app)
    app.callback()(lambda: None)  # a group, as `spark bench` is
    return app


def test_a_bench_command_takes_its_options_and_writes_its_command(tmp_path: Path) -> None:
    def run(n: int = typer.Option(2, "--n")) -> tuple[str, str]:
        """Doc."""
        return f"| {n} |", f" --n {n}"

    docs = tmp_path / "b.md"
    result = CliRunner().invoke(_bench_app(run), ["x", "--n", "5", "--docs", str(docs)])
    assert result.exit_code == 0, result.output
    assert "Command: `spark bench x --n 5`\n\n| 5 |" in docs.read_text()


def test_a_bench_that_fails_is_a_one_line_error_and_writes_nothing(tmp_path: Path) -> None:
    def run() -> tuple[str, str]:
        raise RuntimeError("the engine went away")

    docs = tmp_path / "b.md"
    result = CliRunner().invoke(_bench_app(run), ["x", "--docs", str(docs)])
    assert result.exit_code == 1 and not docs.exists()
    assert "spark bench x: the engine went away" in result.output
