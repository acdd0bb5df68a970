"""`spark bench context`: the generated tree and one small measured run (no timing asserted)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from spark_cli.bench.context import generate_tree, measure
from spark_cli.cli.main import app


def test_generated_tree_has_the_files_and_the_symbol(tmp_path: Path) -> None:
    file, symbol = generate_tree(tmp_path, 120)
    modules = sorted(tmp_path.rglob("*.py"))
    assert len(modules) == 120
    text = (tmp_path / file).read_text()
    assert f"def {symbol}(value):" in text
    assert generate_tree(tmp_path / "again", 120) == (file, symbol)
    assert (tmp_path / "again" / file).read_text() == text  # deterministic


def test_measure_reports_each_build(tmp_path: Path) -> None:
    file, symbol = generate_tree(tmp_path, 60)
    figures = measure(tmp_path, file, symbol, reps=1)
    assert figures["files"] == 60
    assert all(figures[k] > 0 for k in ("first", "next_process", "next_turn"))
    assert figures["map_tokens"] > 0 and figures["references"] >= 1


def test_the_command_writes_its_docs_section(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    generate_tree(repo, 5)
    docs = tmp_path / "benchmarks.md"
    docs.write_text("# Benchmarks\n\n## Edits\n\nkept\n")
    result = CliRunner().invoke(app, ["bench", "context", "--repo", str(repo), "--files", "40",
                                      "--reps", "1", "--docs", str(docs)])
    assert result.exit_code == 0, result.output
    text = docs.read_text()
    assert "## Edits\n\nkept\n" in text and "## Context" in text
    assert "generated, 40 Python files" in text
