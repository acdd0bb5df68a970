"""`spark bench soak`: memory and keystroke latency over a long TUI session (the real SparkApp
renaming a function back and forth, redirecting and queueing every tenth turn), sampled every
``--every`` turns."""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
import tempfile
from pathlib import Path
from typing import Any

import typer

from spark_cli.bench.figures import met, percentile
from spark_cli.bench.processes import example_repo, rss_bytes
from spark_cli.bench.tui import tui_headless as headless

TARGET_GROWTH_MB = 20.0
SOAK_FILE = "src/hello_soak.py"
NAMES = ("greet", "welcome")


def _instruction(turn: int) -> str:
    old, new = NAMES if turn % 2 == 0 else NAMES[::-1]
    return f"rename {old} to {new} in {SOAK_FILE}"


async def _soak(app: Any, log: Any, turns: int, every: int, samples: int) -> dict[str, Any]:
    interaction, session = app.interaction, app.session
    rules = session.settings
    rows: list[dict[str, Any]] = []
    target = app.session.root / SOAK_FILE
    done = edits = 0
    text = target.read_text()
    while done < turns:
        interaction.submit(_instruction(done))
        if done % 10 == 9:  # a redirect while it runs, and a message queued behind it
            await headless.until(lambda: interaction.busy, 10.0, "the turn to start")
            interaction.submit(_instruction(done))
            interaction.enqueue(_instruction(done + 1))
            done += 1
        await headless.until(lambda: not interaction.busy and not interaction.queue, 60.0,
                             "the turn and its queued message to end")
        done += 1
        now = target.read_text()
        edits, text = edits + (now != text), now
        if done // every > len(rows) or done >= turns:
            session.configure(dataclasses.replace(
                rules, provider=dataclasses.replace(rules.provider, model="spark-lorem"),
                max_output_tokens=10_000))
            interaction.submit("stream lorem")
            await headless.until(lambda: session.marks.first_delta_at is not None
                                 or not interaction.busy, 10.0, "the first token")
            keys, lost = await headless.type_probe(app, log, samples, 0.05,
                                                   still=lambda: interaction.busy)
            await interaction.interrupt()
            await interaction.wait()
            session.configure(rules)
            log.frames.clear()  # the bench's own record of frames: not the app's memory
            rows.append({"turn": done, "edits": edits, "rss_mb": rss_bytes() / 2**20,
                         "key_p95_ms": percentile(keys, 0.95) * 1000,
                         "keys": len(keys), "lost": lost})
            typer.echo(f"turn {done} ({edits} turns changed the file): RSS "
                       f"{rows[-1]['rss_mb']:.1f} MB, keystroke p95 "
                       f"{rows[-1]['key_p95_ms']:.1f} ms ({len(keys)} keys, {lost} lost)")
    return {"rows": rows}


def run_soak(turns: int, every: int, samples: int) -> dict[str, Any]:
    """The soak, in a temporary copy of the example repo; its rows (turn, RSS, p95)."""
    with tempfile.TemporaryDirectory(prefix="spark-bench-soak-") as tmp:
        work = example_repo(Path(tmp))
        (work / SOAK_FILE).parent.mkdir(parents=True, exist_ok=True)
        (work / SOAK_FILE).write_text('def greet(name):\n    return "hello " + name\n')

        async def body(app: Any, log: Any) -> dict[str, Any]:
            return await _soak(app, log, turns, every, samples)

        return asyncio.run(headless.run_app(None, secrets.token_urlsafe(8), work, body,
                                            model="spark-rules"))


def verdict(rows: list[dict[str, Any]]) -> str:
    """RSS after the last turn against after turn 50 (the first sample), and the p95s."""
    if len(rows) < 2:
        return "too few samples"
    first, last = rows[0], rows[-1]
    growth = last["rss_mb"] - first["rss_mb"]
    p95s = ", ".join(f"{row['key_p95_ms']:.1f}" for row in rows)
    return (f"{last['edits']} of {last['turn']} turns changed the file; "
            f"RSS turn {first['turn']} {first['rss_mb']:.1f} MB -> turn {last['turn']} "
            f"{last['rss_mb']:.1f} MB ({growth:+.1f} MB, target ≤ +{TARGET_GROWTH_MB:g}: "
            f"{met(growth <= TARGET_GROWTH_MB)}); keystroke p95 by sample: {p95s} ms")


def register(bench_app: typer.Typer) -> None:
    @bench_app.command("soak")
    def bench_soak(
        turns: int = typer.Option(500, "--turns", min=2, help="Turns in the session."),
        every: int = typer.Option(50, "--every", min=1, help="Sample RSS and keys every N."),
        samples: int = typer.Option(40, "--samples", min=1, help="Keys timed per sample."),
    ) -> None:
        """A long TUI session on the bundled engine: RSS and keystroke p95 over the turns."""
        figures = run_soak(turns, every, samples)
        typer.echo(verdict(figures["rows"]))
