"""What every `spark bench` command shares: its options, percentiles, verdicts, docs section.
A bench prints a Markdown table and (unless ``--no-docs``) writes it with its command as its
``## Heading`` of docs/benchmarks.md; notes below the section's ``<!-- kept`` line survive."""

from __future__ import annotations

import inspect
import platform
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

CHANNEL_NAMES = {"responses_ws": "Responses, WebSocket", "responses_sse": "Responses, SSE",
                 "chat_sse": "Chat Completions, SSE"}
KEEP_PREFIX = "<!-- kept"
DOCS_OPTION = typer.Option(None, "--docs",
                           help="Markdown file to update (default: docs/benchmarks.md).")
NO_DOCS_OPTION = typer.Option(False, "--no-docs", help="Only print, write no file.")


def write_section(path: Path, heading: str, body: str) -> None:
    """Put ``body`` under ``heading`` in ``path`` (append the section if it is missing)."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    generated = heading + "\n\n" + body.strip("\n") + "\n"
    start = ("\n" + text).find("\n" + heading + "\n")
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + generated
    else:
        end = text.find("\n## ", start + len(heading))
        end = len(text) if end < 0 else end
        kept = text.find("\n" + KEEP_PREFIX, start, end)
        notes = "\n" + text[kept + 1:end].rstrip("\n") + "\n" if kept >= 0 else ""
        text = text[:start] + generated + notes + text[end:]
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
    """Print ``table``; unless ``no_docs``, write it and the command (``where``: and the
    Python and machine) under ``heading`` of ``docs`` (docs/benchmarks.md)."""
    typer.echo(table)
    if not no_docs:
        on = f" (Python {platform.python_version()}, {platform.machine()})" if where else ""
        target = docs or Path("docs") / "benchmarks.md"
        write_section(target, heading, f"Command: `{command}`{on}\n\n{table}\n")
        typer.echo(f"wrote {target} ({heading})")


def bench_command(name: str, heading: str, run: Callable[..., tuple[str, str]], *,
                  where: bool = False) -> Callable[[typer.Typer], object]:
    """The ``register`` of `spark bench NAME`: ``run``'s options, ``--docs`` and ``--no-docs``;
    ``run`` returns (the table, its flags for the command line) for :func:`report`, or raises
    ``RuntimeError`` (exit 1)."""
    def command(docs: Path | None = DOCS_OPTION, no_docs: bool = NO_DOCS_OPTION,
                **options: Any) -> None:
        try:
            table, flags = run(**options)
        except typer.Exit:  # a RuntimeError too
            raise
        except RuntimeError as exc:
            typer.echo(f"spark bench {name}: {exc}", err=True)
            raise typer.Exit(1) from None
        report(table, f"spark bench {name}{flags}", heading, docs, no_docs, where=where)

    own = inspect.signature(command, eval_str=True).parameters
    params = [*inspect.signature(run, eval_str=True).parameters.values(), own["docs"],
              own["no_docs"]]
    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__doc__ = run.__doc__
    return lambda app: app.command(name)(command)
