"""`spark bench oneshot` smoke test: tiny numbers, real processes; plus its pure helpers."""

from __future__ import annotations

from pathlib import Path

from spark_cli.bench.oneshot import TARGETS, run_benchmark, table, write_section


def test_write_section_replaces_only_its_own_section(tmp_path: Path):
    docs = tmp_path / "benchmarks.md"
    docs.write_text("# Benchmarks\n\n## Engine\n\nengine figures\n\n## One-shot\n\nold\n\n"
                    "## Other\n\nkept\n")
    write_section(docs, "new figures\n")
    text = docs.read_text()
    assert "engine figures" in text and "kept" in text
    assert "old" not in text and "## One-shot\n\nnew figures\n" in text


def test_write_section_appends_when_missing(tmp_path: Path):
    docs = tmp_path / "benchmarks.md"
    write_section(docs, "figures\n")
    assert docs.read_text().endswith("## One-shot\n\nfigures\n")


def test_table_compares_with_the_targets():
    figures = {"launch_to_request_s": 0.1, "cpu_net_per_5k_s": 0.5, "cpu_raw_per_5k_s": 0.7,
               "baseline_cpu_s": 0.1, "end_to_exit_s": 0.01}
    rendered = table(figures)
    assert "| launch → request | 0.100 s | ≤ 0.15 s | met |" in rendered
    assert "0.500 s | ≤ 0.2 s | missed |" in rendered
    assert set(TARGETS) <= set(figures)


def test_oneshot_runs_end_to_end_with_tiny_numbers(tmp_path: Path):
    figures = run_benchmark(reps=1, tokens=200, tps=20000.0, workdir=tmp_path)
    assert figures["exit_codes"] == [0]
    assert figures["output_tokens"] > 0
    assert figures["launch_to_request_s"] > 0
    assert figures["cpu_raw_per_5k_s"] > 0
    assert figures["end_to_exit_s"] > 0


def test_write_section_keeps_notes_after_the_mark(tmp_path: Path):
    from spark_cli.bench.oneshot import KEEP_MARK

    docs = tmp_path / "benchmarks.md"
    docs.write_text(f"# B\n\n## One-shot\n\nold table\n\n{KEEP_MARK}\n\nnotes\n\n## Next\n\nx\n")
    write_section(docs, "new table\n")
    text = docs.read_text()
    assert "old table" not in text and "new table" in text
    assert f"{KEEP_MARK}\n\nnotes\n" in text and text.endswith("## Next\n\nx\n")
