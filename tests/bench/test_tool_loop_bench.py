"""`spark bench tools`: a tiny real run (the rules brain searches, reads, edits), the table,
the section."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from spark_cli.cli.main import app

pytest.importorskip("spark_cli.engine.brains.rules.looking",
                    reason="the rules brain does not call tools yet")


def test_a_tiny_real_run_times_each_round_trip_on_both_channels(tmp_path: Path) -> None:
    docs = tmp_path / "benchmarks.md"
    docs.write_text("# Benchmarks\n\n## Engine\n\nkeep me\n")
    result = CliRunner().invoke(app, ["bench", "tools", "--runs", "1", "--docs", str(docs)])
    assert result.exit_code == 0, result.output
    text = docs.read_text()
    assert text.startswith("# Benchmarks\n\n## Engine\n\nkeep me\n\n## Tools\n")
    assert "| Responses WebSocket | 2 | " in text and "| Chat Completions SSE | 2 | " in text
    assert "search → read → edit, no file named (2 tool calls)" in text
    assert "Command: `spark bench tools --runs 1 --tps 5000`" in text

