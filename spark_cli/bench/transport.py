"""`spark bench transport`: per-turn overhead, persistent WebSocket vs fresh HTTP per turn:
one-token turns through the real channels to an engine with no model time, the paths of
:data:`PATHS` interleaved turn by turn."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

import typer

from spark_cli.bench.figures import bench_command, median_p95, met
from spark_cli.bench.processes import start_engine
from spark_cli.protocol.channel import Message, TextDelta, TurnFinished, TurnRequest
from spark_cli.transport.factory import open_channel

SECTION = "## Transport"
CLAIM = 0.80
PATHS = {"ws": "persistent WebSocket (`responses_ws`, one connection)",
         "fresh": "fresh HTTP per turn (`chat_sse`, new HTTP client + TCP connection)",
         "reused": "kept-alive HTTP (`chat_sse`, one client; reference)",
         "fresh_ws": "fresh WebSocket per turn (`responses_ws`, handshake in the turn)",
         "spare": "after a stop that closed the socket: on the warm spare connection",
         "handshake": "after a stop that closed the socket: a new handshake (no spare)"}


async def _turn(channel: Any, request: Any) -> float:
    start = time.perf_counter()
    last = None
    async for event in channel.stream(request):
        last = event
    elapsed = time.perf_counter() - start
    if not isinstance(last, TurnFinished) or last.status not in ("completed", "incomplete"):
        raise RuntimeError(f"benchmark turn did not finish normally: {last!r}")
    return elapsed


async def measure(base_url: str, token: str, turns: int, warmup: int) -> dict[str, list[float]]:
    """Seconds per turn for each path of :data:`PATHS` (interleaved: noise hits them alike)."""
    request = TurnRequest("spark-mini", (Message("user", "ping"),), max_output_tokens=1)

    def ws(spare: bool = False, cancel: bool = True) -> Any:
        return open_channel("responses_ws", base_url=base_url, api_key=token, warm_spare=spare,
                            use_cancel_extension=cancel)

    def chat() -> Any:
        return open_channel("chat_sse", base_url=base_url, api_key=token)

    async def fresh(channel: Any) -> float:
        try:
            return await _turn(channel, request)  # a WebSocket's handshake is in the turn
        finally:
            await channel.aclose()

    async def after_stop(channel: Any) -> float:
        """The turn right after a stop that closed the socket (no cancel extension)."""
        async for event in channel.stream(request):
            if type(event) is TextDelta:
                await channel.stop()
        await asyncio.sleep(0.01)  # a user's next turn never follows within 10 ms
        return await _turn(channel, request)

    kept = {"ws": ws(), "reused": chat(), "spare": ws(spare=True, cancel=False),
            "handshake": ws(cancel=False)}
    paths: dict[str, Callable[[], Awaitable[float]]] = {
        "ws": lambda: _turn(kept["ws"], request), "fresh": lambda: fresh(chat()),
        "reused": lambda: _turn(kept["reused"], request), "fresh_ws": lambda: fresh(ws()),
        "spare": lambda: after_stop(kept["spare"]),
        "handshake": lambda: after_stop(kept["handshake"])}
    results: dict[str, list[float]] = {name: [] for name in paths}
    try:
        for name in ("ws", "spare", "handshake"):
            await kept[name].warm()
        for n in range(warmup + turns):
            for name, path in paths.items():
                seconds = await path()
                if n >= warmup:
                    results[name].append(seconds)
    finally:
        for channel in kept.values():
            await channel.aclose()
    return results


def summarise(results: dict[str, list[float]]) -> dict[str, float]:
    figures: dict[str, float] = {}
    for name, values in results.items():
        median, p95 = median_p95(values)
        figures[f"{name}_median"], figures[f"{name}_p95"] = median * 1000, p95 * 1000
    for ref in ("fresh", "reused", "fresh_ws"):
        if f"{ref}_median" in figures:
            figures[f"cut_{ref}_median"] = 1 - figures["ws_median"] / figures[f"{ref}_median"]
    figures["cut_p95"] = 1 - figures["ws_p95"] / figures["fresh_p95"]
    return figures


def table(f: dict[str, float]) -> str:
    rows = ["| path | median | p95 | the persistent socket's cut (median) |",
            "|---|---|---|---|"]
    for name, label in PATHS.items():
        if f"{name}_median" not in f:
            continue
        cut = f"{f[f'cut_{name}_median']:.0%}" if f"cut_{name}_median" in f else ""
        if name == "fresh":
            cut = (f"**{cut}** (p95 {f['cut_p95']:.0%}; the seeds claim {CLAIM:.0%}: "
                   f"{met(f['cut_fresh_median'] >= CLAIM)})")
        if name == "handshake":
            cut = f"the spare saves {f['handshake_median'] - f['spare_median']:.2f} ms"
        rows.append(f"| {label} | {f[f'{name}_median']:.2f} ms | {f[f'{name}_p95']:.2f} ms "
                    f"| {cut} |")
    return "\n".join(rows)


def bench_transport(
    turns: int = typer.Option(200, "--turns", min=5, help="Timed turns per path."),
    warmup: int = typer.Option(20, "--warmup", min=0, help="Untimed turns first."),
) -> tuple[str, str]:
    """Per-turn overhead: persistent WebSocket vs a fresh HTTP connection per turn."""
    with start_engine(secrets.token_hex(16), "--ttft-ms", "0", "--tps", "1000000") as engine:
        results = asyncio.run(measure(engine.url + "/v1", engine.token, turns, warmup))
    return table(summarise(results)), f" --turns {turns} --warmup {warmup}"


register = bench_command("transport", SECTION, bench_transport)
