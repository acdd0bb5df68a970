"""What every `spark bench` command shares: percentiles, verdicts and its docs section.

A bench measures, renders a Markdown table, prints it and (unless ``--no-docs``) writes the
command and the table as its ``## Heading`` of docs/benchmarks.md, replacing that section
and no other. How each figure is taken is written by hand below the section's
``<!-- kept`` line, which a re-run keeps, so the code holds no prose about it.
"""

from __future__ import annotations

import platform
import statistics
from pathlib import Path

import typer

CHANNEL_NAMES = {"responses_ws": "Responses, WebSocket", "responses_sse": "Responses, SSE",
            "chat_sse": "Chat Completions, SSE"}
"""Each channel's name in a table."""
KEEP_PREFIX = "<!-- kept"
KEEP_MARK = "<!-- kept: notes below survive a re-run of the bench -->"
DOCS_OPTION = typer.Option(None, "--docs",
                           help="Markdown file to update (default: docs/benchmarks.md).")
NO_DOCS_OPTION = typer.Option(False, "--no-docs", help="Only print, write no file.")


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


def percentile(values: list[float], fraction: float) -> float:
    """The value at ``fraction`` (0..1) of the sorted ``values``, nearest rank; NaN for none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))]


def median_p95(values: list[float]) -> tuple[float, float]:
    """(median, p95) of ``values``; NaN for none."""
    if not values:
        return float("nan"), float("nan")
    return statistics.median(values), percentile(values, 0.95)


def net_per_5k(cpu_s: float, tokens: int, one_token_cpu_s: float) -> float:
    """CPU per 5,000 tokens of an answer of ``tokens``, net of a 1-token answer's CPU."""
    return max(0.0, cpu_s - one_token_cpu_s) * 5000 / max(tokens - 1, 1)


def met(passed: bool) -> str:
    """A target's verdict cell."""
    return "met" if passed else "missed"


def pick(text: str, known: tuple[str, ...], flag: str) -> tuple[str, ...]:
    """``a,b`` -> the names given to ``flag``, each one of ``known`` (else BadParameter)."""
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise typer.BadParameter(f"{flag}: {', '.join(unknown) or 'none'} (known: "
                                 f"{', '.join(known)})")
    return names


def report(table: str, command: str, heading: str, docs: Path | None, no_docs: bool,
           *, where: bool = False) -> None:
    """Print ``table``; unless ``no_docs``, write the command (``where``: and the Python and
    machine it ran on) and the table under ``heading`` of ``docs`` (docs/benchmarks.md)."""
    typer.echo(table)
    if not no_docs:
        on = f" (Python {platform.python_version()}, {platform.machine()})" if where else ""
        target = docs or Path("docs") / "benchmarks.md"
        write_section(target, heading, f"Command: `{command}`{on}\n\n{table}\n")
        typer.echo(f"wrote {target} ({heading})")
