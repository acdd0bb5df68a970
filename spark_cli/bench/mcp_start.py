"""`spark bench mcp`: what MCP servers cost the caller at launch, and launch -> request paired.
Three real servers, one slow: a hub's ``start()`` + ``specs()``, the longest event-loop stall,
each one's time to ready; ``--paired N``: `spark edit --json` with none and with the three."""

from __future__ import annotations

import asyncio
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import typer

from spark_cli.bench.figures import bench_command
from spark_cli.bench.oneshot.child import run_once
from spark_cli.bench.processes import start_engine
from spark_cli.mcp.hub import McpHub
from spark_cli.mcp.mcp_config import McpServerConfig

SECTION = "## MCP"


def _servers(work: Path) -> list[McpServerConfig]:
    bin_dir = Path(sys.executable).parent
    time_server = shutil.which("mcp-server-time") or str(bin_dir / "mcp-server-time")
    git_server = shutil.which("mcp-server-git") or str(bin_dir / "mcp-server-git")
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    slow = ("-c", f"sleep 3; exec {time_server}")
    return [McpServerConfig("time", "bench", command=time_server),
            McpServerConfig("git", "bench", command=git_server, args=("--repository", str(work))),
            McpServerConfig("slow", "bench", command="sh", args=slow)]


def config_toml(servers: list[McpServerConfig]) -> str:
    """The servers as a config file's ``[mcp_servers]`` tables."""
    return "\n".join(f'[mcp_servers.{s.name}]\ncommand = "{s.command}"\n'
                     f"args = {json.dumps(list(s.args))}\n" for s in servers)


async def _one_start(servers: list[McpServerConfig], work: Path, cache: Path,
                     watch: bool) -> dict[str, float]:
    hub = McpHub(servers, work, cache=cache)
    lag = 0.0
    ready: dict[str, float] = {}
    started = time.perf_counter()
    hub.start()
    declared = hub.specs()
    took = time.perf_counter() - started
    again = time.perf_counter()
    hub.specs()
    again = time.perf_counter() - again
    while watch and len(ready) < len(servers) and time.perf_counter() - started < 30:
        tick = time.perf_counter()
        await asyncio.sleep(0.001)
        lag = max(lag, time.perf_counter() - tick - 0.001)
        for s in hub.status():
            if s.state == "ready" and s.name not in ready:
                ready[s.name] = time.perf_counter() - started
    await hub.aclose()
    return {"start_specs_us": took * 1e6, "again_us": again * 1e6, "declared": len(declared.tools),
            "lag_ms": lag * 1e3, **{f"ready_{k}_s": v for k, v in ready.items()}}


async def _in_process(reps: int) -> list[str]:
    with tempfile.TemporaryDirectory() as scratch:
        work, cache = Path(scratch), Path(scratch) / "cache"
        servers = _servers(work)
        first = await _one_start(servers, work, cache, watch=True)  # cold: no cache yet
        warm = [await _one_start(servers, work, cache, watch=False) for _ in range(reps)]
    median = statistics.median(r["start_specs_us"] for r in warm)
    ready = ", ".join(f"{k[6:-2]} {v:.2f} s" for k, v in first.items() if k.startswith("ready"))
    return [f"| `start()` + `specs()`, warm cache ({int(warm[0]['declared'])} tools declared) "
            f"| {median:.0f} µs (median of {reps}) |",
            f"| `start()` + `specs()`, no cache (0 declared, 3 notes) "
            f"| {first['start_specs_us']:.0f} µs |",
            f"| `specs()` again (each later request) "
            f"| {statistics.median(r['again_us'] for r in warm):.0f} µs |",
            f"| longest event-loop stall while the three start (SDK import included) "
            f"| {first['lag_ms']:.1f} ms |",
            f"| each server ready after | {ready} |"]


def _paired(reps: int) -> list[str]:
    token = "bench-mcp"
    figures: dict[str, list[float]] = {"none": [], "three": []}
    with (start_engine(token, "--brain", "lorem", "--tps", "2000", "--ttft-ms", "0") as engine,
          tempfile.TemporaryDirectory() as scratch):
        work = Path(scratch)
        extra = config_toml(_servers(work / "repo"))
        for rep in range(reps + 1):
            for label, config in (("none", ""), ("three", extra)):
                r = run_once(engine.url, token, 1, work, config_extra=config)
                if rep:  # the first of each is a warm-up (and fills the tool cache)
                    figures[label].append(r.launch_to_request_s)
    none, three = (statistics.median(figures[k]) for k in ("none", "three"))
    return [f"| launch -> request, no MCP servers | {none * 1e3:.0f} ms (median of {reps}) |",
            f"| launch -> request, three servers (one slow) | {three * 1e3:.0f} ms "
            f"({(three / none - 1) * 100:+.0f}%) |"]


def bench_mcp(
    reps: int = typer.Option(5, "--reps", help="Warm-cache starts."),
    paired: int = typer.Option(0, "--paired", help="Paired spark edit runs (0: none)."),
) -> tuple[str, str]:
    """What MCP servers cost the caller at launch (docs/benchmarks.md, ## MCP)."""
    rows = asyncio.run(_in_process(reps)) + (_paired(paired) if paired else [])
    table = "\n".join(["| what | figure |", "|---|---|", *rows])
    return table, f" --paired {paired}" if paired else ""


register = bench_command("mcp", SECTION, bench_mcp)
