"""`spark bench oneshot`: launch → request, CPU per 5,000 tokens and stream end → exit of
`spark edit --json` on every channel (:mod:`.child`), the bundled tiny edit, Codex CLI beside
(:mod:`.rival`)."""

from __future__ import annotations

import secrets
import shutil
import statistics
import tempfile
from contextlib import ExitStack, closing
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import typer

from spark_cli.bench.figures import CHANNEL_NAMES, bench_command, met, net_per_5k
from spark_cli.bench.oneshot.child import Repetition, run_bundled, run_once
from spark_cli.bench.oneshot.rival import SideBySide, side_table
from spark_cli.bench.processes import child_env, start_engine

SECTION = "## One-shot"
TARGETS = {"launch_to_request_s": 0.10, "cpu_net_per_5k_s": 0.2, "end_to_exit_s": 0.02,
           "bundled_wall_s": 0.3}
CHANNELS = ("responses_ws", "chat_sse", "responses_sse")


def channel_figures(runs: list[Repetition], short: list[Repetition]) -> dict[str, Any]:
    """Medians of one channel's runs; CPU net of a 1-token answer's on the same channel."""
    base = statistics.median(r.cpu_raw_s for r in short)
    net = [net_per_5k(r.cpu_raw_s, r.output_tokens, base) for r in runs]
    return {
        "launch_to_request_s": statistics.median(r.launch_to_request_s for r in runs),
        "cpu_raw_s": statistics.median(r.cpu_raw_s for r in runs),
        "cpu_net_per_5k_s": statistics.median(net),
        "cpu_short_s": base,
        "end_to_exit_s": statistics.median(r.end_to_exit_s for r in runs),
        "output_tokens": statistics.median(r.output_tokens for r in runs),
        "exit_codes": sorted({r.exit_code for r in runs}),
    }


def run_benchmark(reps: int, tokens: int, tps: float, workdir: Path,
                  channels: tuple[str, ...] = CHANNELS, bundled: bool = True,
                  codex: str | None = None) -> dict[str, Any]:
    """Medians of every channel, interleaved (noise hits all alike), the bundled edit, Codex."""
    token = secrets.token_urlsafe(12)
    runs: dict[str, list[Repetition]] = {c: [] for c in channels}
    short: dict[str, list[Repetition]] = {c: [] for c in channels}
    side = None
    with (start_engine(token, "--brain", "lorem", "--tps", f"{tps:g}", "--ttft-ms", "0",
                       "--max-output-tokens", str(tokens), env=child_env()) as engine,
          ExitStack() as stack):
        url = engine.url
        if codex is not None:
            parts = urlsplit(url)
            side = stack.enter_context(closing(SideBySide(
                codex, parts.hostname or "127.0.0.1", parts.port or 80, token, tokens, workdir)))
            side.rep(0, counted=False)
        for channel in channels:
            run_once(url, token, min(tokens, 50), workdir, channel)  # warm-up: bytecode, caches
        for rep in range(reps):
            for channel in channels:
                short[channel].append(run_once(url, token, 1, workdir, channel))
                runs[channel].append(run_once(url, token, tokens, workdir, channel))
            if side is not None:
                side.rep(rep)
    figures: dict[str, Any] = {"reps": reps, "tokens": tokens, "tps": tps,
                               "channels": {c: channel_figures(runs[c], short[c])
                                            for c in channels}}
    if side is not None:
        figures["side"] = side.figures()
    if bundled:
        figures["bundled"] = run_bundled(reps, workdir / "bundled")
    return figures


def table(figures: dict[str, Any]) -> str:
    channels = list(figures["channels"])
    per = figures["channels"]

    def row(name: str, key: str, target: float | None) -> str:
        values = [per[c][key] for c in channels]
        cells = " | ".join(f"{v:.3f} s" for v in values)
        goal = "" if target is None else f"≤ {target:g} s"
        verdict = "" if target is None else met(all(v <= target for v in values))
        return f"| {name} | {cells} | {goal} | {verdict} |"

    lines = [
        "| metric (median) | " + " | ".join(CHANNEL_NAMES[c] for c in channels)
        + " | target | |",
        "|---|" + "---|" * len(channels) + "---|---|",
        row("launch → request", "launch_to_request_s", TARGETS["launch_to_request_s"]),
        row("CPU per 5,000 tokens, net of start-up", "cpu_net_per_5k_s",
            TARGETS["cpu_net_per_5k_s"]),
        row("CPU, whole process, whole answer", "cpu_raw_s", None),
        row("CPU, whole process, 1-token answer", "cpu_short_s", None),
        row("stream end → exit", "end_to_exit_s", TARGETS["end_to_exit_s"]),
    ]
    bundled = figures.get("bundled")
    if bundled:
        target = TARGETS["bundled_wall_s"]
        lines += ["", "| bundled engine, tiny edit (whole process) | median | min | target | |",
                  "|---|---|---|---|---|",
                  f"| wall | {bundled['wall_s']:.3f} s | {bundled['wall_min_s']:.3f} s | "
                  f"≤ {target:g} s | {met(bundled['wall_s'] <= target)} |",
                  f"| CPU | {bundled['cpu_s']:.3f} s | {bundled['cpu_min_s']:.3f} s | | |"]
    side = figures.get("side")
    if side:
        lines += ["", side_table(side, figures["tokens"])]
    return "\n".join(lines)


def _rival(given: str | None, skip: bool) -> str | None:
    """The codex to run side by side (``--codex``, else on PATH), or None with a note why."""
    found = None if skip else shutil.which(given or "codex")
    if found is None and given is not None and not skip:
        typer.echo(f"spark bench oneshot: --codex {given}: no such executable", err=True)
        raise typer.Exit(2)
    if found is None and not skip:
        typer.echo("Codex CLI: no `codex` on PATH, side by side skipped (--codex PATH to run it)")
    return found


def bench_oneshot(
    reps: int = typer.Option(7, "--reps", min=1, help="Repetitions (the median is kept)."),
    tokens: int = typer.Option(5000, "--tokens", min=1, help="Tokens per answer."),
    tps: float = typer.Option(2000.0, "--tps", min=1.0, help="Engine tokens per second."),
    codex: str | None = typer.Option(
        None, "--codex", help="Codex CLI to run side by side (a path or a name on PATH; "
        "default: `codex` on PATH, else skipped)."),
    no_codex: bool = typer.Option(False, "--no-codex", help="Skip Codex CLI even if "
                                  "`codex` is on PATH."),
) -> tuple[str, str]:
    """Time `spark edit` end to end on every channel (engine in another process)."""
    rival = _rival(codex, no_codex)
    with tempfile.TemporaryDirectory(prefix="spark-bench-oneshot-") as tmp:
        figures = run_benchmark(reps, tokens, tps, Path(tmp), codex=rival)
    answers = {c: f["output_tokens"] for c, f in figures["channels"].items()}
    codes = sorted({code for f in figures["channels"].values() for code in f["exit_codes"]})
    typer.echo(f"oneshot: {reps} runs per channel of {tokens} tokens at {tps:g} tok/s, "
               f"answers of {answers} tokens, exit codes {codes}")
    return table(figures), f" --reps {reps} --tokens {tokens} --tps {tps:g}" + (
        " --codex PATH" if rival else "")


register = bench_command("oneshot", SECTION, bench_oneshot, where=True)
