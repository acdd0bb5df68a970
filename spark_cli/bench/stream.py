"""`spark bench stream`: spark's CPU on a real-shaped stream, as a ratio to the floor.

Real fast providers send one token per message, paced as they generate; the
bundled engine batches ~20 a frame by default. Here the engine runs in its own
process with ``--per-token`` (each message carries exactly one token, paced at
``--tps``) and, in the same run, interleaved, on each wire (Responses over
WebSocket, Chat Completions SSE):

- the floor: ``spark_cli.bench.stream_floor`` in a child process, the least a
  Python client does to read and decode the same stream;
- `spark edit FILE -m ...` with its stdout a pipe (text), and with ``--json``;

then the same with the engine's default batched shape (a delta per 10 ms
frame), so both shapes are in one report (``--no-batched`` skips it).

CPU per 5,000 tokens is each child's user+system CPU (``os.wait4``) net of a
1-token answer's on the same wire and mode (start-up, imports, connect), scaled
to 5,000 tokens; spark's is given as a ratio to the floor's. Medians over
``--reps``; ``--docs`` writes ``## Stream`` in docs/benchmarks.md.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import typer

from spark_cli.bench.child_usage import wait_child
from spark_cli.bench.engine_process import start_engine
from spark_cli.bench.oneshot_child import channel_args, child_env, spark_command

SECTION = "## Stream"
WIRES = ("responses_ws", "chat_sse")
LABELS = {"responses_ws": "Responses, WebSocket", "chat_sse": "Chat Completions, SSE"}
MODES = ("floor", "pipe", "json")
MODE_LABELS = {"floor": "floor client (read + decode)", "pipe": "`spark edit` to a pipe",
               "json": "`spark edit --json`"}
_SAMPLE = 'def greet(name):\n    return "hello " + name\n'


@dataclass(frozen=True, slots=True)
class Run:
    cpu_s: float
    tokens: int
    messages: int
    """Text messages the floor counted (0 for spark's runs)."""


def _child(argv: list[str], workdir: Path, env: dict[str, str]) -> tuple[float, str]:
    """Run ``argv``; (its CPU, its stdout)."""
    out: list[str] = []
    proc = subprocess.Popen(argv, cwd=workdir, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True)
    reader = threading.Thread(target=lambda: out.extend(proc.stdout or ()), daemon=True)
    reader.start()
    usage = wait_child(proc)
    reader.join(10)
    if proc.stdout is not None:
        proc.stdout.close()
    return usage.cpu_s, "".join(out)


def run_one(mode: str, wire: str, engine: object, tokens: int, workdir: Path) -> Run:
    """One child of ``mode`` on ``wire`` asking for ``tokens`` tokens."""
    url, ws_url, token = engine.url, engine.ws_url, engine.token  # type: ignore[attr-defined]
    if mode == "floor":
        target = ws_url if wire == "responses_ws" else url + "/v1"
        argv = [sys.executable, "-m", "spark_cli.bench.stream_floor",
                "ws" if wire == "responses_ws" else "chat", target, token, str(tokens)]
        cpu, out = _child(argv, workdir, child_env())
        words = out.split()
        messages = int(words[0]) if words else 0
        return Run(cpu, tokens, messages)
    (workdir / "bench.py").write_text(_SAMPLE)
    config_dir = workdir / f"config-{wire}"
    flags = channel_args(wire, url, config_dir)
    argv = [*spark_command(), "edit", "bench.py", "-m", "stream lorem", *flags,
            "--max-output-tokens", str(tokens)] + (["--json"] if mode == "json" else [])
    cpu, _ = _child(argv, workdir, child_env(SPARK_API_KEY=token,
                                             SPARK_CONFIG_DIR=str(config_dir)))
    return Run(cpu, tokens, 0)


Figures = dict[str, dict[str, dict[str, float]]]
"""wire -> mode -> figure -> value."""


def measure(reps: int, tokens: int, tps: float, workdir: Path, *,
            per_token: bool = True) -> Figures:
    """Every wire and mode, interleaved, against one engine process; medians. Without
    ``per_token`` the engine batches as it does by default (a delta per 10 ms frame)."""
    import secrets

    token = secrets.token_urlsafe(12)
    shape = ["--per-token"] if per_token else ["--frame-ms", "10"]
    engine = start_engine(token, "--brain", "lorem", "--tps", f"{tps:g}", "--ttft-ms", "0",
                          *shape, "--max-output-tokens", str(tokens), env=child_env())
    long: dict[tuple[str, str], list[Run]] = {}
    short: dict[tuple[str, str], list[Run]] = {}
    try:
        for wire in WIRES:
            for mode in MODES:
                run_one(mode, wire, engine, 50, workdir)  # warm-up: bytecode, caches
        for _ in range(reps):
            for wire in WIRES:
                for mode in MODES:
                    short.setdefault((wire, mode), []).append(
                        run_one(mode, wire, engine, 1, workdir))
                    long.setdefault((wire, mode), []).append(
                        run_one(mode, wire, engine, tokens, workdir))
    finally:
        engine.stop()
    figures: Figures = {}
    for (wire, mode), runs in long.items():
        base = statistics.median(r.cpu_s for r in short[(wire, mode)])
        net = [max(0.0, r.cpu_s - base) * 5000 / max(r.tokens - 1, 1) for r in runs]
        figures.setdefault(wire, {})[mode] = {
            "cpu_net_per_5k_s": statistics.median(net),
            "cpu_raw_s": statistics.median(r.cpu_s for r in runs),
            "cpu_short_s": base,
            "messages": statistics.median(r.messages for r in runs),
        }
    return figures


def table(shapes: dict[str, Figures]) -> str:
    """One row per stream shape, wire and mode: CPU per 5k net, the ratio to the floor (of
    the same shape and wire), raw CPU."""
    rows = ["| stream | wire | client | text messages | CPU / 5k tokens (net) | × floor | "
            "CPU raw (1-token run) |", "|---|---|---|---|---|---|---|"]
    for shape, figures in shapes.items():
        rows += _rows(shape, figures)
    return "\n".join(rows)


def _rows(shape: str, figures: Figures) -> list[str]:
    rows: list[str] = []
    for wire, modes in figures.items():
        messages = f"{modes['floor']['messages']:,.0f}"
        floor = modes["floor"]["cpu_net_per_5k_s"]
        for mode in MODES:
            f = modes[mode]
            ratio = f["cpu_net_per_5k_s"] / floor if floor > 0 else float("nan")
            rows.append(f"| {shape} | {LABELS[wire]} | {MODE_LABELS[mode]} | {messages} | "
                        f"{f['cpu_net_per_5k_s']:.3f} s | {ratio:.2f}× | "
                        f"{f['cpu_raw_s']:.3f} s ({f['cpu_short_s']:.3f} s) |")
    return rows


def register(bench_app: typer.Typer) -> None:
    @bench_app.command("stream")
    def bench_stream(
        reps: int = typer.Option(3, "--reps", min=1, help="Repetitions (medians)."),
        tokens: int = typer.Option(5000, "--tokens", min=2, help="Tokens per answer."),
        tps: float = typer.Option(2000.0, "--tps", min=1.0, help="Engine tokens per second."),
        batched: bool = typer.Option(
            True, "--batched/--no-batched",
            help="Also measure the engine's default batched shape (a delta per 10 ms)."),
        docs: Path | None = typer.Option(None, "--docs",
                                         help="Also write '## Stream' in this file."),
    ) -> None:
        """CPU per 5,000 tokens on a one-token-per-message stream, as a ratio to a floor
        client, for `spark edit` to a pipe and --json, on each wire."""
        import platform
        import tempfile

        shapes: dict[str, Figures] = {}
        with tempfile.TemporaryDirectory(prefix="spark-bench-stream-") as tmp:
            try:
                shapes["one token per message"] = measure(reps, tokens, tps, Path(tmp))
                if batched:
                    shapes["batched (10 ms frames)"] = measure(reps, tokens, tps, Path(tmp),
                                                               per_token=False)
            except RuntimeError as exc:
                typer.echo(f"spark bench stream: {exc}", err=True)
                raise typer.Exit(1) from None
        head = (f"{reps} run(s) per shape, wire and client of {tokens} tokens at {tps:g} tok/s, "
                f"the engine in its own process (--per-token, then its default 10 ms frames); "
                f"Python {platform.python_version()}")
        body = table(shapes)
        typer.echo(head)
        typer.echo(body)
        if docs is not None:
            from spark_cli.bench.docs_section import write_section

            command = (f"spark bench stream --reps {reps} --tokens {tokens} --tps {tps:g}"
                       + ("" if batched else " --no-batched"))
            write_section(docs, SECTION, f"Command: `{command}`. {head}.\n\n{body}\n")
            typer.echo(f"wrote {docs} ({SECTION})")
