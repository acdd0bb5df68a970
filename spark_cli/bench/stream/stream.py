"""`spark bench stream`: spark's CPU on a one-token-a-message stream, as a ratio to the floor
(:mod:`.floor_lib`; also :mod:`.floor`), interleaved per wire: `spark edit` to a pipe, a pty,
``--json``, the TUI (:mod:`.stream_tui_child`); ``--baseline TREE`` paired. CPU per 5,000
tokens is net of a 1-token answer's."""

from __future__ import annotations

import os
import secrets
import statistics
import sys
import tempfile
from pathlib import Path

import typer

from spark_cli.bench.figures import CHANNEL_NAMES, net_per_5k, pick, report
from spark_cli.bench.oneshot.child import edit_child
from spark_cli.bench.processes import EngineProcess, child_env, run_piped, start_engine, wait_child
from spark_cli.bench.tui.tui_pty import Pty
from spark_cli.record import record

SECTION = "## Stream"
BATCHED_SECTION = "## Stream, batched"
"""Where ``--frame-ms`` runs go, so the per-token section stays."""
WIRES = ("responses_ws", "chat_sse")
MODES = ("socket", "floor", "pipe", "tty", "json", "tui")
SPARK_MODES = ("pipe", "tty", "json", "tui")
MODE_LABELS = {"socket": "bare socket, no asyncio (read + decode)",
               "floor": "floor: asyncio + websockets / h11 (read + decode)",
               "pipe": "`spark edit` to a pipe", "tty": "`spark edit` to a terminal (pty)",
               "json": "`spark edit --json`", "tui": "TUI, headless (the turn's CPU)"}
BASE = "@base"
"""Suffix of a mode run from the ``--baseline`` source tree."""
FLOORS = {"socket": "spark_cli.bench.stream.floor", "floor": "spark_cli.bench.stream.floor_lib"}
"""Floor mode -> the module run as ``python -m``."""


Figures = dict[str, dict[str, dict[str, float]]]
"""row ("WIRE @ TPS") -> mode -> figure -> value."""


@record
class Run:
    """One measured run of a client consuming a stream: its CPU and what it received."""

    cpu_s: float
    tokens: int
    messages: int
    """Text messages the floor counted (0 for spark's runs)."""
    first_s: float = 0.0
    """The TUI's request sent -> first frame showing text (0 for the others)."""
    key_p95_s: float = 0.0
    """The TUI's keystroke -> frame p95 while such an answer streams (0 for the others)."""


def _on_pty(argv: list[str], workdir: Path, env: dict[str, str]) -> float:
    """Run ``argv`` on a pseudo-terminal (its output read and dropped); its CPU."""
    terminal = Pty(argv, workdir, env)
    terminal.pump(600.0)  # until it closes the terminal
    usage = wait_child(terminal.proc)
    os.close(terminal.master)
    return usage.cpu_s


def run_one(mode: str, wire: str, target: EngineProcess, tps: float, tokens: int, workdir: Path,
            baseline: Path | None = None) -> Run:
    """One child of ``mode`` on ``wire`` asking for ``tokens`` tokens (spark from ``baseline``)."""
    if mode in FLOORS:
        url = target.ws_url if wire == "responses_ws" else target.url + "/v1"
        argv = [sys.executable, "-m", FLOORS[mode], "ws" if wire == "responses_ws" else "chat",
                url, target.token, str(tokens)]
        run = run_piped(argv, workdir, child_env())
        words = run.out.split()
        return Run(run.usage.cpu_s, tokens, int(words[0]) if words else 0)
    if mode == "tui":
        return _tui(wire, target, tps, tokens, workdir, baseline)
    argv, env = edit_child(wire, target.url, target.token, tokens, workdir,
                           json_lines=mode == "json", baseline=baseline)
    if mode == "tty":
        return Run(_on_pty(argv, workdir, env), tokens, 0)
    return Run(run_piped(argv, workdir, env).usage.cpu_s, tokens, 0)


def _tui(wire: str, target: EngineProcess, tps: float, tokens: int, workdir: Path,
         baseline: Path | None) -> Run:
    """The headless TUI child (by its path: a baseline tree's app, this tree's child)."""
    argv = [sys.executable, "-P", str(Path(__file__).with_name("stream_tui_child.py")),
            "ws" if wire == "responses_ws" else "chat", target.url, target.token, str(tokens),
            f"{tps:g}"]
    project = workdir / "tui"
    project.mkdir(exist_ok=True)
    env = child_env(**({"PYTHONPATH": str(baseline)} if baseline is not None else {}))
    env.pop("TERM", None)
    out = run_piped(argv, project, env).out
    words = out.split()
    if len(words) != 3:
        raise RuntimeError(f"the TUI child printed {out[-200:]!r}")
    cpu, first, p95 = (float(w) for w in words)
    return Run(cpu, tokens, 0, first, p95)


def _modes(modes: tuple[str, ...], baseline: Path | None) -> list[str]:
    extra = [m + BASE for m in modes if m in SPARK_MODES] if baseline is not None else []
    return [*modes, *extra]


def measure(reps: int, tokens: int, rates: list[float], workdir: Path,
            modes: tuple[str, ...] = MODES, wires: tuple[str, ...] = WIRES,
            baseline: Path | None = None, frame_ms: float | None = None) -> Figures:
    """Every rate, wire and mode, interleaved per repetition; medians and paired ratios."""
    figures: Figures = {}
    runs = _modes(modes, baseline)
    for tps in rates:
        token = secrets.token_urlsafe(12)
        shape = ("--per-token",) if frame_ms is None else ("--frame-ms", f"{frame_ms:g}")
        long: dict[tuple[str, str], list[Run]] = {}
        short: dict[tuple[str, str], list[Run]] = {}
        with start_engine(token, "--brain", "lorem", "--tps", f"{tps:g}", "--ttft-ms", "0",
                          *shape, env=child_env()) as engine:
            def one(mode: str, wire: str, n: int, engine: EngineProcess = engine,
                    tps: float = tps) -> Run:
                base = baseline if mode.endswith(BASE) else None
                return run_one(mode.removesuffix(BASE), wire, engine, tps, n, workdir, base)

            for wire in wires:
                for mode in runs:
                    one(mode, wire, 50)  # warm-up: bytecode, caches
            for _ in range(reps):
                for wire in wires:
                    for mode in runs:
                        short.setdefault((wire, mode), []).append(one(mode, wire, 1))
                        long.setdefault((wire, mode), []).append(one(mode, wire, tokens))
        for wire in wires:
            figures[f"{wire} @ {tps:g}"] = _row(wire, runs, short, long)
    return figures


def _row(wire: str, runs: list[str], short: dict[tuple[str, str], list[Run]],
         long: dict[tuple[str, str], list[Run]]) -> dict[str, dict[str, float]]:
    """One wire's medians per mode, and each mode's paired ratios to its references."""
    row: dict[str, dict[str, float]] = {}
    nets: dict[str, list[float]] = {}
    for mode in runs:
        base_cpu = statistics.median(r.cpu_s for r in short[(wire, mode)])
        done = long[(wire, mode)]
        nets[mode] = [net_per_5k(r.cpu_s, r.tokens, base_cpu) for r in done]
        row[mode] = {
            "cpu_net_per_5k_s": statistics.median(nets[mode]),
            "cpu_raw_s": statistics.median(r.cpu_s for r in done),
            "cpu_short_s": base_cpu,
            "messages": statistics.median(r.messages for r in done),
        }
        if mode.removesuffix(BASE) == "tui":
            row[mode]["first_s"] = statistics.median(r.first_s for r in done)
            row[mode]["key_p95_s"] = statistics.median(r.key_p95_s for r in done)
    for mode in runs:
        refs = {"x_floor": "floor", "x_socket": "socket", "x_base": mode + BASE}
        for key, ref in refs.items():
            if ref in nets and ref != mode:
                pairs = [a / b for a, b in zip(nets[mode], nets[ref], strict=True) if b > 0]
                row[mode][key] = statistics.median(pairs) if pairs else float("nan")
    return row


def _who(key: str, mode: str) -> str:
    """``| wire @ tok/s | client |`` of one row."""
    wire, _, tps = key.partition(" @ ")
    base = " (baseline tree)" if mode.endswith(BASE) else ""
    return f"| {CHANNEL_NAMES[wire]} @ {tps} | {MODE_LABELS[mode.removesuffix(BASE)]}{base} |"


def table(figures: Figures) -> str:
    """One row per wire, rate and mode: CPU per 5k net, the paired ratios, raw CPU."""
    rows = ["| wire @ tok/s | client | CPU / 5k tokens (net) | × floor | × bare socket "
            "| × baseline tree | CPU raw (1-token run) |", "|---|---|---|---|---|---|---|"]
    for key, modes in figures.items():
        for mode, f in modes.items():
            ratios = [f"{f[k]:.2f}×" if k in f else "—" for k in ("x_floor", "x_socket", "x_base")]
            rows.append(f"{_who(key, mode)} {f['cpu_net_per_5k_s']:.3f} s | {' | '.join(ratios)}"
                        f" | {f['cpu_raw_s']:.3f} s ({f['cpu_short_s']:.3f} s) |")
    latency = [f"{_who(key, mode)} {f['first_s'] * 1000:.1f} ms | {f['key_p95_s'] * 1000:.1f} ms |"
               for key, modes in figures.items() for mode, f in modes.items() if "first_s" in f]
    if latency:
        rows += ["", "| wire @ tok/s | client | request sent → first text on screen "
                 "| keystroke → frame p95 (streaming) |", "|---|---|---|---|", *latency]
    return "\n".join(rows)


def register(bench_app: typer.Typer) -> None:
    @bench_app.command("stream")
    def bench_stream(
        reps: int = typer.Option(3, "--reps", min=1, help="Repetitions (medians)."),
        tokens: int = typer.Option(5000, "--tokens", min=2, help="Tokens per answer."),
        tps: list[float] = typer.Option([2000.0], "--tps", min=1.0,
                                        help="Engine tokens per second (repeatable)."),
        modes: str = typer.Option(",".join(MODES), "--modes", help="Clients, comma-separated."),
        wires: str = typer.Option(",".join(WIRES), "--wires", help="Wires, comma-separated."),
        baseline: Path | None = typer.Option(
            None, "--baseline", help="Also run spark's modes from this source tree (a "
            "checkout of another commit, bytecode compiled): before/after, paired."),
        frame_ms: float | None = typer.Option(
            None, "--frame-ms", min=1.0, help="The batched shape instead: the engine sends "
            "the tokens due within each frame of this many ms as one message."),
        docs: Path | None = typer.Option(None, "--docs",
                                         help="Also write '## Stream' in this file."),
    ) -> None:
        """CPU per 5,000 tokens on a one-token-per-message stream, as a ratio to a floor
        client, for `spark edit` to a pipe, a terminal and --json, on each wire."""
        chosen = pick(modes, MODES, "--modes")
        on = pick(wires, WIRES, "--wires")
        with tempfile.TemporaryDirectory(prefix="spark-bench-stream-") as tmp:
            try:
                figures = measure(reps, tokens, tps, Path(tmp), chosen, on, baseline, frame_ms)
            except RuntimeError as exc:
                typer.echo(f"spark bench stream: {exc}", err=True)
                raise typer.Exit(1) from None
        messages = {k: m["floor"]["messages"] for k, m in figures.items() if "floor" in m}
        shape = "--per-token" if frame_ms is None else f"--frame-ms {frame_ms:g}"
        head = (f"{reps} paired run(s) per wire, rate and client of {tokens} tokens, the "
                f"engine in its own process with {shape} (text messages per answer the "
                f"floor saw: {messages})")
        rates = " ".join(f"--tps {t:g}" for t in tps)
        batched = f" --frame-ms {frame_ms:g}" if frame_ms is not None else ""
        command = f"spark bench stream --reps {reps} --tokens {tokens} {rates}{batched}"
        section = SECTION if frame_ms is None else BATCHED_SECTION
        report(f"{head}.\n\n{table(figures)}", command, section, docs, docs is None, where=True)
