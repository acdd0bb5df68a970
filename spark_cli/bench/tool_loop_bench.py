"""`spark bench tools`: a tool round trip's cost on spark's side and a whole looking turn, on
the ``rules`` brain and a copy of ``examples/repo``: each round trip of a search → read → edit
turn (wall, CPU, the tools' time apart); the file pushed instead; the sandbox's start-up; a
command's exit to the follow-up request."""

from __future__ import annotations

import asyncio
import os
import secrets
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import typer

from spark_cli.bench.figures import bench_command, median_p95, met
from spark_cli.bench.processes import example_repo, start_engine
from spark_cli.bench.session_bench import engine_sessions
from spark_cli.checks.runner import run_command
from spark_cli.checks.sandbox import Sandbox, find_sandbox
from spark_cli.session.actions.approval import ApprovalRequest, Decision
from spark_cli.session.events import (
    CommandOutput,
    RequestSent,
    ToolCallFinished,
    TurnCompleted,
    TurnFailed,
)

SECTION = "## Tools"
INSTRUCTION = "replace 'discount must be 0-100' with 'discount must be between 0 and 100'"
FILE = "src/shop/pricing.py"
KINDS = (("responses_ws", "mock"), ("chat_sse", "openai-compatible"))
TARGET_MS = 2.0


def _turns(engine: Any, provider: str, *, tools: bool, files: list[str],
           runs: int) -> list[dict[str, Any]]:
    """``runs`` turns' figures on a copy of the repo, after an uncounted one (walk, imports)."""
    async def turns(root: Path) -> list[dict[str, Any]]:
        original = (root / FILE).read_text()
        out: list[dict[str, Any]] = []
        async for session in engine_sessions(engine, root, runs + 1, provider, tools=tools):
            (root / FILE).write_text(original)
            await session.warm()
            out.append(await _turn(session, files))
        return out[1:]

    with tempfile.TemporaryDirectory(prefix="spark-bench-tools-") as tmp:
        return asyncio.run(turns(example_repo(Path(tmp))))


async def _turn(session: Any, files: list[str]) -> dict[str, Any]:
    """One turn: wall time, each round trip and what its tools ran."""
    tool_ms: list[float] = []  # per round trip: the tools' own time
    batch = 0.0
    done: TurnCompleted | None = None
    started = time.perf_counter()
    async for event in session.run_turn(INSTRUCTION, files):
        if isinstance(event, ToolCallFinished):
            batch += event.ms
        elif isinstance(event, RequestSent) and batch:
            tool_ms.append(batch)
            batch = 0.0
        elif isinstance(event, TurnCompleted):
            done = event
        elif isinstance(event, TurnFailed):
            raise RuntimeError(f"the turn failed: {event.message}")
    wall = time.perf_counter() - started
    if done is None or done.applied != 1:
        raise RuntimeError(f"the turn did not make the one edit: {done}")
    trips = [t * 1000 for t in session.marks.round_trips]
    cpu = [t * 1000 for t in session.marks.round_trip_cpu]
    return {"wall": wall, "trips": trips, "cpu": cpu, "tool_ms": tool_ms,
            "tool_calls": done.tool_calls}


async def _exit_to_request(engine: Any, root: Path, provider: str, runs: int) -> list[float]:
    """Milliseconds from a command's exit to the next request, ``runs`` turns after one more."""
    async def allow(request: ApprovalRequest, /) -> Decision:
        return "once"

    gaps: list[float] = []
    turn = 0
    async for session in engine_sessions(engine, root, runs + 1, provider, commands="ask"):
        session.set_approver(allow)
        printed = None
        async for event in session.run_turn("run `date +%s.%N`", []):
            if isinstance(event, CommandOutput):
                printed = float(event.text.split()[0])
            elif isinstance(event, RequestSent) and printed is not None and turn:
                gaps.append((time.time() - printed) * 1000)
        turn += 1
    return gaps


async def _sandbox_start(runs: int) -> dict[str, float] | None:
    """``true`` in the sandbox and outside, in turn: medians and of the differences (or None)."""
    sandbox = find_sandbox()
    if not isinstance(sandbox, Sandbox):
        return None
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    with tempfile.TemporaryDirectory(prefix="spark-bench-sandbox-") as tmp:
        pairs = [[(await run_command("true", Path(tmp), timeout=30, env=env,
                                     sandbox=box)).duration_s * 1000 for box in (sandbox, None)]
                 for _ in range(runs * 5)]
    return {"in": statistics.median(p[0] for p in pairs),
            "out": statistics.median(p[1] for p in pairs),
            "extra": statistics.median(p[0] - p[1] for p in pairs), "n": len(pairs)}


def measure(runs: int, tps: int) -> dict[str, Any]:
    figures: dict[str, Any] = {"runs": runs, "tps": tps}
    with start_engine(secrets.token_urlsafe(12), "--tps", str(tps)) as engine:
        for kind, provider in KINDS:
            turns = _turns(engine, provider, tools=True, files=[], runs=runs)
            trips = [t for turn in turns for t in turn["trips"]]
            cpu = [t for turn in turns for t in turn["cpu"]]
            tools = [t for turn in turns for t in turn["tool_ms"]]
            if not trips or len(trips) != len(tools):
                raise RuntimeError(f"{kind}: {len(trips)} round trips, {len(tools)} tool runs")
            loop = [trip - tool for trip, tool in zip(trips, tools, strict=True)]
            figures[kind] = {"n": len(trips), "tool_median": statistics.median(tools),
                             "calls": statistics.median(t["tool_calls"] for t in turns)}
            for name, values in (("", trips), ("loop_", loop), ("cpu_", cpu)):
                figures[kind][f"{name}median"], figures[kind][f"{name}p95"] = median_p95(values)
            if kind == "responses_ws":
                figures["looking_s"] = statistics.median(t["wall"] for t in turns)
        pushed = _turns(engine, "mock", tools=False, files=[FILE], runs=runs)
        figures["pushed_s"] = statistics.median(t["wall"] for t in pushed)
        with tempfile.TemporaryDirectory(prefix="spark-bench-command-") as tmp:
            for kind, provider in KINDS:
                gaps = asyncio.run(_exit_to_request(engine, Path(tmp), provider, runs * 2))
                median, p95 = median_p95(gaps)
                figures[f"command_{kind}"] = {"median": median, "p95": p95, "n": len(gaps)}
    figures["sandbox"] = asyncio.run(_sandbox_start(runs))
    return figures


def table(f: dict[str, Any]) -> str:
    rows = ["| channel | round trips | spark's side: median | p95 | CPU: median | p95 | "
            "the tools ran (median) | the loop without them: median | p95 |",
            "|---|---|---|---|---|---|---|---|---|"]
    labels = {"responses_ws": "Responses WebSocket", "chat_sse": "Chat Completions SSE"}
    for kind, _ in KINDS:
        r = f[kind]
        rows.append(f"| {labels[kind]} | {r['n']} | {r['median']:.2f} ms | {r['p95']:.2f} ms | "
                    f"{r['cpu_median']:.2f} ms | {r['cpu_p95']:.2f} ms | "
                    f"{r['tool_median']:.2f} ms | {r['loop_median']:.2f} ms | "
                    f"{r['loop_p95']:.2f} ms |")
    ws = f["responses_ws"]
    rows += ["", f"Target: ≤ {TARGET_MS:g} ms client side per round trip on the WebSocket "
             f"(median): wall time {met(ws['median'] <= TARGET_MS)}, CPU "
             f"{met(ws['cpu_median'] <= TARGET_MS)}.", "",
             "| the whole turn (WebSocket) | median |", "|---|---|",
             f"| search → read → edit, no file named ({ws['calls']:.0f} tool calls) | "
             f"{f['looking_s'] * 1000:,.0f} ms |",
             f"| the file pushed up front, tools off | {f['pushed_s'] * 1000:,.0f} ms |"]
    rows += ["", "| a command's exit → the next request on the wire | median | p95 |",
             "|---|---|---|"]
    rows += [f"| {kind} ({f[f'command_{kind}']['n']} turns) | "
             f"{f[f'command_{kind}']['median']:.1f} ms | {f[f'command_{kind}']['p95']:.1f} ms |"
             for kind, _ in KINDS if f"command_{kind}" in f]
    if (box := f.get("sandbox")) is not None:
        rows += ["", "| `run_command(\"true\")` ({n} pairs, in turn) | in the sandbox | "
                 "outside | the sandbox's own start-up (median of the differences) |"
                 .format(n=box["n"]), "|---|---|---|---|",
                 f"| median | {box['in']:.1f} ms | {box['out']:.1f} ms | {box['extra']:.1f} ms |"]
    return "\n".join(rows)


def bench_tools(
    runs: int = typer.Option(10, "--runs", min=1, help="Turns per channel."),
    tps: int = typer.Option(5000, "--tps", min=1, help="The engine's pace (tokens/s)."),
) -> tuple[str, str]:
    """A tool round trip's cost on spark's side (WS, Chat SSE) and a whole looking turn."""
    return table(measure(runs, tps)), f" --runs {runs} --tps {tps}"


register = bench_command("tools", SECTION, bench_tools)
