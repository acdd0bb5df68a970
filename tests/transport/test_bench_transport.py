"""spark bench transport: the figures and the docs section (the run itself needs the engine)."""

from pathlib import Path

from spark_cli.bench.figures import write_section
from spark_cli.bench.transport import SECTION, summarise, table


def test_summary_reports_medians_p95_and_the_cut() -> None:
    results = {
        "ws": [0.001] * 9 + [0.002],
        "fresh": [0.005] * 9 + [0.010],
        "reused": [0.002] * 10,
        "fresh_ws": [0.004] * 10,
    }
    figures = summarise(results)
    assert figures["ws_median"] == 1.0
    assert figures["fresh_median"] == 5.0
    assert figures["ws_p95"] == 2.0
    assert round(figures["cut_fresh_median"], 6) == 0.8


def test_the_transport_section_is_replaced_and_the_others_kept(tmp_path: Path) -> None:
    docs = tmp_path / "benchmarks.md"
    docs.write_text(
        "# Benchmarks\n\n## Edits\n\nedits text\n\n## Transport\n\nold\n\n## One-shot\n\nx\n"
    )
    figures = summarise({"ws": [0.001], "fresh": [0.004], "reused": [0.002], "fresh_ws": [0.003]})
    write_section(docs, SECTION, "Command: `spark bench transport --turns 1`\n\n" + table(figures))
    text = docs.read_text()
    assert "old" not in text
    assert "## Edits\n\nedits text\n\n## Transport\n\n" in text
    assert text.count("## Transport") == 1
    assert "**75%**" in text
    assert text.endswith("## One-shot\n\nx\n")
    assert "spark bench transport --turns 1" in text


def test_a_missing_section_is_appended(tmp_path: Path) -> None:
    docs = tmp_path / "benchmarks.md"
    docs.write_text("# Benchmarks\n\n## Edits\n\ne\n")
    figures = summarise({"ws": [0.001], "fresh": [0.004], "reused": [0.002], "fresh_ws": [0.003]})
    write_section(docs, SECTION, table(figures))
    assert docs.read_text().startswith("# Benchmarks\n\n## Edits\n\ne\n\n## Transport\n")
