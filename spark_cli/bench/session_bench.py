"""`spark bench session`: a long scripted session on the bundled engine, through compactions.
"explain FILE" turns on a copy of ``examples/repo`` in a 16,000-token window: each compaction's
tokens and time, peak RSS; it fails when a turn is dropped unsummarised or a message is lost."""

from __future__ import annotations

import asyncio
import os
import secrets
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import typer

from spark_cli.bench.figures import bench_command
from spark_cli.bench.processes import example_repo, rss_bytes, start_engine
from spark_cli.cli.wiring import open_provider_channel
from spark_cli.session.config.settings import load_settings
from spark_cli.session.conversation import Session
from spark_cli.session.events import CompactionFinished, TurnCompleted, TurnFailed

FILES = ("src/shop/pricing.py", "src/shop/cart.py", "tests/test_cart.py", "web/cart.js",
         "web/format.js", "README.md")


async def engine_sessions(engine: Any, root: Path, count: int, provider: str = "mock",
                          **flags: object) -> AsyncIterator[Session]:
    """``count`` new sessions in ``root`` on one channel to ``engine``'s ``rules`` brain."""
    settings = load_settings(root, {"provider": provider, "base_url": engine.url + "/v1",
                                    "model": "spark-rules", **flags},
                             {"SPARK_CONFIG_DIR": str(root / ".no-config"),
                              "SPARK_API_KEY": engine.token,
                              "SPARK_STATE_DIR": os.environ.get("SPARK_STATE_DIR", "")})
    async with open_provider_channel(settings.provider, idle_timeout=30) as channel:
        for _ in range(count):
            yield Session(channel, root, settings)


async def run_session(engine: Any, root: Path, turns: int, window: int = 16_000) -> dict[str, Any]:
    """The figures; ``RuntimeError`` when a turn failed, was dropped or a message went missing."""
    done: list[CompactionFinished] = []
    rss: list[int] = []
    async for session in engine_sessions(engine, root, 1, context_window=window):
        for n in range(1, turns + 1):
            path = FILES[n % len(FILES)]
            async for event in session.run_turn(f"explain {path} (turn {n})", [path]):
                if type(event) is CompactionFinished and event.outcome != "compacted":
                    raise RuntimeError(f"turn {n}: {event.line}")
                if type(event) is TurnFailed or (
                        type(event) is TurnCompleted and event.status != "completed"):
                    raise RuntimeError(f"turn {n} did not complete: {event}")
                done += [event] if type(event) is CompactionFinished else []
            dropped = [t for t in session.context.trimmed if "left out" in t] \
                if session.context is not None else []
            if dropped:
                raise RuntimeError(f"turn {n} dropped turns unsummarised: {dropped[0]}")
            rss.append(rss_bytes(peak=True))
    asked = "\n".join(turn.text for turn in session.turns)
    lost = [n for n in range(1, turns + 1) if f"(turn {n})" not in asked]
    if lost:
        raise RuntimeError(f"user messages lost from the conversation: turns {lost[:10]}")
    return {"turns": turns, "compactions": done, "rss": rss, "window": window,
            "history": len(session.history), "kept": len(session.turns)}


def table(f: dict[str, Any]) -> str:
    done: list[CompactionFinished] = f["compactions"]
    rss = [f["rss"][max(0, round(f["turns"] * share) - 1)] / 2**20 for share in (0.1, 0.5, 1)]
    rows = [f"{f['turns']} turns at {f['tps']:,} tok/s, window {f['window']:,}: {len(done)} "
            "compactions, no turn dropped unsummarised, no user message lost (the saved session "
            f"keeps {f['kept']:,} turns as they were; the model has {f['history']:,} items).", "",
            "| # | folded turns | context before | after | wall time |", "|---|---|---|---|---|"]
    rows += [f"| {n} | {e.turns} | {e.tokens_before:,} | {e.tokens_after:,} | "
             f"{e.seconds * 1000:,.0f} ms |" for n, e in enumerate(done, 1)
             if n <= 6 or n > len(done) - 6]
    rows += ["", "| peak RSS after 10% of the turns | 50% | 100% |", "|---|---|---|",
             "| " + " | ".join(f"{mib:.1f} MiB" for mib in rss) + " |"]
    return "\n".join(rows)


def bench_session(
    turns: int = typer.Option(300, "--turns", min=1, help="Turns in the session."),
    tps: int = typer.Option(2000, "--tps", min=1, help="The engine's pace (tokens/s)."),
) -> tuple[str, str]:
    """A long scripted session through compactions: what each cost, RSS as it grows."""
    with start_engine(secrets.token_urlsafe(12), "--tps", str(tps)) as engine, \
            tempfile.TemporaryDirectory(prefix="spark-bench-session-") as tmp:
        figures = asyncio.run(run_session(engine, example_repo(Path(tmp)), turns))
    return table({**figures, "tps": tps}), f" --turns {turns} --tps {tps}"


register = bench_command("session", "## Long sessions", bench_session)
