"""What every `spark bench` command shares: percentiles, verdicts and its report.

A bench measures, renders a Markdown table, prints it and (unless ``--no-docs``) writes
the command and the table as its ``## Heading`` of docs/benchmarks.md
(:mod:`spark_cli.bench.docs_section`). How each figure is taken is written by hand below
the section's ``<!-- kept`` line, so the code holds no prose about it.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import typer

from spark_cli.bench.docs_section import publish


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


def report(table: str, command: str, heading: str, docs: Path | None, no_docs: bool) -> None:
    """Print ``table``; unless ``no_docs``, write the command and it under ``heading``."""
    typer.echo(table)
    if not no_docs:
        publish(docs, heading, f"Command: `{command}`\n\n{table}\n")
