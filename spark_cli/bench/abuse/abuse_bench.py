"""`spark bench abuse`: a bounded, loopback-only abuse run against a fresh engine process.
The families of :mod:`.abuse_frames`, sent by :mod:`.abuse_runs`: requests answered in the
documented shape, tracebacks in the engine's log, its memory and fds before and after."""

from __future__ import annotations

import asyncio
import itertools
import secrets
import tempfile
import time
from typing import Any

import typer

from spark_cli.bench.abuse import abuse_runs as runs
from spark_cli.bench.abuse.abuse_frames import WS_FAMILIES, http_cases
from spark_cli.bench.figures import bench_command, met
from spark_cli.bench.processes import rss_bytes, start_engine

SECTION = "## Abuse"
RSS_TOLERANCE = 0.10
OVERSIZED = 17 * 1024 * 1024
"""One frame over the engine's 16 MiB WebSocket limit."""


async def _attack(ws_url: str, url: str, token: str, messages: int, disconnects: int,
                  connections: int, body_rounds: int) -> dict[str, Any]:
    kinds = [frame for family in WS_FAMILIES.values() for frame in family]
    frames = list(itertools.islice(itertools.cycle(kinds), messages))
    tallies = {
        "malformed WebSocket frames": await runs.bad_frames(ws_url, token, frames, 50),
        "oversized frame (1009)": await runs.oversized_frame(ws_url, token, OVERSIZED),
        "abrupt disconnects": await runs.disconnects(ws_url, url, token, disconnects),
        "concurrent WebSockets": await runs.concurrent_sockets(ws_url, token, connections),
        "concurrent HTTP streams": await runs.concurrent_http(url, token, connections // 3),
        "bad HTTP requests": await runs.bad_requests(url, token, http_cases() * body_rounds),
    }
    return {"tallies": tallies, "kinds": len(kinds)}


def _settle(engine: Any, fds: int, seconds: float = 5.0) -> None:
    """Give closed connections a moment to be reaped (fds back to ``fds``)."""
    deadline = time.monotonic() + seconds
    while engine.open_fds() > fds and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)


def measure(messages: int, disconnects: int, connections: int, body_rounds: int,
            timeout_s: float) -> dict[str, Any]:
    token = secrets.token_hex(12)
    with tempfile.TemporaryFile("w+") as log:
        with start_engine(token, "--tps", "200000", "--ttft-ms", "0", "--queue", "1024",
                          stderr=log.fileno()) as engine:
            if not engine.url.startswith("http://127.0.0.1:"):
                raise RuntimeError(f"the engine is not on loopback: {engine.url}")

            async def warm() -> None:  # one round at full width: the allocator's high-water
                await runs.concurrent_sockets(engine.ws_url, token, connections)
                await runs.concurrent_http(engine.url, token, connections // 3)

            asyncio.run(warm())
            _settle(engine, 0, 0.5)
            before = {"rss": rss_bytes(engine.pid), "fds": engine.open_fds()}
            started = time.perf_counter()

            async def bounded() -> dict[str, Any]:
                async with asyncio.timeout(timeout_s):
                    return await _attack(engine.ws_url, engine.url, token, messages,
                                         disconnects, connections, body_rounds)

            figures = asyncio.run(bounded())
            figures["seconds"] = time.perf_counter() - started
            _settle(engine, before["fds"])
            alive = asyncio.run(runs.concurrent_sockets(engine.ws_url, token, 1))
            figures["alive_after"] = alive.answered == 1
            figures["before"] = before
            figures["after"] = {"rss": rss_bytes(engine.pid), "fds": engine.open_fds()}
        log.seek(0)
        text = log.read()
    figures["tracebacks"] = text.count("Traceback (most recent call last)")
    figures["log_tail"] = text.strip().splitlines()[-5:]
    return figures


def table(f: dict[str, Any]) -> str:
    rows = ["| family | tried | answered as documented |", "|---|---|---|"]
    tried = answered = 0
    for name, tally in f["tallies"].items():
        rows.append(f"| {name} | {tally.tried:,} | {tally.answered:,} |")
        tried += tally.tried
        answered += tally.answered
    rows.append(f"| **all** | **{tried:,}** | **{answered:,}** |")
    before, after = f["before"], f["after"]
    change = after["rss"] / before["rss"] - 1.0 if before["rss"] else float("nan")
    checks = [
        "| figure | measured | target | met |", "|---|---|---|---|",
        f"| answered in the documented shape | {answered:,} of {tried:,} | all | "
        f"{met(answered == tried)} |",
        f"| tracebacks in the engine's log | {f['tracebacks']} | 0 | "
        f"{met(f['tracebacks'] == 0)} |",
        f"| engine RSS before → after | {before['rss'] / 2**20:.1f} → "
        f"{after['rss'] / 2**20:.1f} MiB ({change:+.1%}) | within 10% | "
        f"{met(abs(change) <= RSS_TOLERANCE)} |",
        f"| engine open fds before → after | {before['fds']} → {after['fds']} | baseline | "
        f"{met(after['fds'] <= before['fds'])} |",
        f"| engine answers a new turn afterwards | {'yes' if f['alive_after'] else 'no'} | "
        f"yes | {met(f['alive_after'])} |",
        f"| the run's length ({f['kinds']} kinds of bad frame) | {f['seconds']:.1f} s | | |",
    ]
    return "\n".join(rows) + "\n\n" + "\n".join(checks)


def bench_abuse(
    messages: int = typer.Option(1000, "--messages", min=1,
                                 help="Malformed WebSocket frames to send."),
    disconnects: int = typer.Option(200, "--disconnects", min=0, help="Abrupt disconnects."),
    connections: int = typer.Option(300, "--connections", min=1,
                                    help="WebSockets open at once."),
    body_rounds: int = typer.Option(2, "--body-rounds", min=1,
                                    help="Rounds of the bad HTTP requests."),
    timeout_s: float = typer.Option(300.0, "--timeout", help="Stop the run after (s)."),
) -> tuple[str, str]:
    """Hostile clients against a fresh engine: answered as documented, no leaks."""
    figures = measure(messages, disconnects, connections, body_rounds, timeout_s)
    for name, tally in figures["tallies"].items():
        for miss in tally.misses:
            typer.echo(f"  not as documented ({name}): {miss}")
    if figures["tracebacks"]:
        typer.echo("  engine log: " + " | ".join(figures["log_tail"]))
    return table(figures), (f" --messages {messages} --disconnects {disconnects} "
                            f"--connections {connections} --body-rounds {body_rounds}")


register = bench_command("abuse", SECTION, bench_abuse)
