"""One benchmark's section of ``docs/benchmarks.md``: replaced on a re-run, the rest kept.

Each ``spark bench`` command owns one ``## Heading`` section. A re-run replaces
that section's generated text and leaves every other section alone; hand-written
notes that follow a ``<!-- kept ... -->`` line inside the section survive too.
"""

from __future__ import annotations

from pathlib import Path

import typer

KEEP_PREFIX = "<!-- kept"
KEEP_MARK = "<!-- kept: notes below survive a re-run of the bench -->"
DOCS_OPTION = typer.Option(None, "--docs",
                           help="Markdown file to update (default: docs/benchmarks.md).")
NO_DOCS_OPTION = typer.Option(False, "--no-docs", help="Only print, write no file.")


def publish(docs: Path | None, heading: str, body: str) -> None:
    """Write ``body`` under ``heading`` in ``docs`` (default: docs/benchmarks.md) and say so."""
    target = docs or Path("docs") / "benchmarks.md"
    write_section(target, heading, body)
    typer.echo(f"wrote {target} ({heading})")


def write_section(path: Path, heading: str, body: str) -> None:
    """Put ``body`` under ``heading`` in ``path`` (append the section if it is missing)."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    generated = heading + "\n\n" + body.strip("\n") + "\n"
    if text.startswith(heading + "\n"):
        start = 0
    else:
        found = text.find("\n" + heading + "\n")
        start = -1 if found < 0 else found + 1
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + generated
    else:
        end = text.find("\n## ", start + len(heading))
        old = text[start:] if end < 0 else text[start:end]
        tail = "" if end < 0 else text[end:]
        kept = old.find("\n" + KEEP_PREFIX)
        notes = "\n" + old[kept + 1:].rstrip("\n") + "\n" if kept >= 0 else ""
        text = text[:start] + generated + notes + tail
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
