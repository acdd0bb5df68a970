"""`spark bench session`: a scripted long session on the bundled engine, through compactions.

A fresh engine (the ``rules`` brain, paced at ``--tps``) and the real session over the
WebSocket, on a copy of ``examples/repo`` with ``context_window = 16000``: ``--turns``
"explain FILE" turns in a row (each file sent whole, in turn). It checks that no turn was
dropped unsummarised and no user message was lost, and reports each compaction (tokens
before and after, its wall time at that pace) and the process's peak RSS as the session
grows. Goes to ``## Long sessions``.
"""

from __future__ import annotations

import asyncio
import secrets
import statistics
import tempfile
from pathlib import Path
from typing import Any

import typer

from spark_cli.bench.figures import DOCS_OPTION, NO_DOCS_OPTION, report
from spark_cli.bench.processes import example_repo, rss_bytes, start_engine
from spark_cli.cli.wiring import open_provider_channel
from spark_cli.protocol.channel import Message
from spark_cli.session.config.settings import load_settings
from spark_cli.session.conversation import Session
from spark_cli.session.events import CompactionFinished, TurnCompleted, TurnFailed

SECTION = "## Long sessions"
WINDOW = 16_000
FILES = ("src/shop/pricing.py", "src/shop/cart.py", "tests/test_cart.py", "web/cart.js",
         "web/format.js", "README.md")


async def run_session(engine: Any, root: Path, turns: int,
                      window: int = WINDOW) -> dict[str, Any]:
    """The session's figures; ``RuntimeError`` when a turn failed, was dropped unsummarised
    or a user message went missing."""
    settings = load_settings(root, {"provider": "mock", "base_url": engine.url + "/v1",
                                    "model": "spark-rules", "context_window": window},
                             {"SPARK_CONFIG_DIR": str(root / ".no-config"),
                              "SPARK_API_KEY": engine.token})
    compactions: list[CompactionFinished] = []
    rss: list[int] = []
    async with open_provider_channel(settings.provider, idle_timeout=30) as channel:
        session = Session(channel, root, settings)
        for n in range(turns):
            path = FILES[n % len(FILES)]
            async for event in session.run_turn(f"explain {path} (turn {n + 1})", [path]):
                if isinstance(event, CompactionFinished):
                    if event.outcome != "compacted":
                        raise RuntimeError(f"turn {n + 1}: {event.line}")
                    compactions.append(event)
                elif isinstance(event, TurnFailed) or (
                        isinstance(event, TurnCompleted) and event.status != "completed"):
                    raise RuntimeError(f"turn {n + 1} did not complete: {event}")
            dropped = [line for line in session.context.trimmed if "left out" in line] \
                if session.context is not None else []
            if dropped:
                raise RuntimeError(f"turn {n + 1} dropped turns unsummarised: {dropped[0]}")
            rss.append(rss_bytes(peak=True))
        asked = [m.content for m in session.history if type(m) is Message and m.role == "user"]
        lost = [n + 1 for n in range(turns) if not any(f"(turn {n + 1})" in a for a in asked)]
        if lost:
            raise RuntimeError(f"user messages lost from the conversation: turns {lost[:10]}")
    return {"turns": turns, "compactions": compactions, "rss": rss,
            "history": len(session.history), "window": window}


def measure(turns: int, tps: int) -> dict[str, Any]:
    with start_engine(secrets.token_urlsafe(12), "--tps", str(tps)) as engine, \
            tempfile.TemporaryDirectory(prefix="spark-bench-session-") as tmp:
        figures = asyncio.run(run_session(engine, example_repo(Path(tmp)), turns))
    figures["tps"] = tps
    return figures


def table(f: dict[str, Any]) -> str:
    done: list[CompactionFinished] = f["compactions"]
    rss, turns = f["rss"], f["turns"]
    mib = [rss[max(0, round(turns * share) - 1)] / 2**20 for share in (0.1, 0.5, 1.0)]
    rows = [f"{turns} turns at {f['tps']:,} tok/s, window {f['window']:,}: {len(done)} "
            "compactions, "
            "no turn dropped unsummarised, no user message lost "
            f"({f['history']:,} items kept in the saved conversation).", "",
            "| # | folded turns | context before | after | wall time |", "|---|---|---|---|---|"]
    shown = done if len(done) <= 12 else [*done[:6], *done[-6:]]
    for event in shown:
        rows.append(f"| {done.index(event) + 1} | {event.turns} | {event.tokens_before:,} | "
                    f"{event.tokens_after:,} | {event.seconds * 1000:,.0f} ms |")
    if done:
        seconds = [e.seconds * 1000 for e in done]
        rows += ["", f"Compaction wall time: median {statistics.median(seconds):,.0f} ms, "
                 f"max {max(seconds):,.0f} ms."]
    rows += ["", "| peak RSS after 10% of the turns | 50% | 100% |", "|---|---|---|",
             f"| {mib[0]:.1f} MiB | {mib[1]:.1f} MiB | {mib[2]:.1f} MiB |"]
    return "\n".join(rows)


def register(bench_app: typer.Typer) -> None:
    @bench_app.command("session")
    def bench_session(
        turns: int = typer.Option(300, "--turns", min=1, help="Turns in the session."),
        tps: int = typer.Option(2000, "--tps", min=1, help="The engine's pace (tokens/s)."),
        docs: Path | None = DOCS_OPTION,
        no_docs: bool = NO_DOCS_OPTION,
    ) -> None:
        """A long scripted session through compactions: what each cost, RSS as it grows."""
        try:
            figures = measure(turns, tps)
        except RuntimeError as exc:
            typer.echo(f"spark bench session: {exc}", err=True)
            raise typer.Exit(1) from None
        report(table(figures), f"spark bench session --turns {turns} --tps {tps}", SECTION,
               docs, no_docs)
