"""The docs section a bench owns: it rewrites only its own; `<!-- kept` notes survive."""

from __future__ import annotations

from pathlib import Path

from spark_cli.bench.figures import write_section

KEEP_MARK = "<!-- kept: notes below survive a re-run of the bench -->"


def test_first_section_last_section_and_kept_notes(tmp_path: Path) -> None:
    docs = tmp_path / "b.md"
    docs.write_text(f"## A\n\nold a\n\n## B\n\nold b\n\n{KEEP_MARK}\n\nmy notes\n")
    write_section(docs, "## A", "new a\n")
    write_section(docs, "## B", "new b\n")
    assert docs.read_text() == f"## A\n\nnew a\n\n## B\n\nnew b\n\n{KEEP_MARK}\n\nmy notes\n"


def test_rewriting_with_the_same_body_changes_nothing(tmp_path: Path) -> None:
    text = "# Benchmarks\n\n## A\n\nfigures\n\n<!-- kept by hand -->\n\nn\n\n## B\n\nb\n"
    docs = tmp_path / "b.md"
    docs.write_text(text)
    write_section(docs, "## A", "figures\n")
    assert docs.read_text() == text
    write_section(docs, "## C", "c\n")
    assert docs.read_text() == text + "\n## C\n\nc\n"
