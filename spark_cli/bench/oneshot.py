"""`spark bench oneshot`: launch → request, CPU per 5,000 streamed tokens, stream end → exit.

The engine runs in a SEPARATE process (`spark engine serve --port 0 --brain
lorem --tps 2000 --ttft-ms 0 --token T`); each repetition spawns a real
`spark edit FILE -m ... --provider mock --base-url URL/v1 --max-output-tokens
5000 --json` child (key via ``SPARK_API_KEY``) and measures, in the same run:

- launch → request: the parent's ``time.monotonic()`` just before ``Popen``
  vs the child's ``request_sent`` event (``time.perf_counter()``). On Linux
  both read CLOCK_MONOTONIC, so the two processes' stamps compare directly.
- CPU per 5,000 tokens: the child's user+system CPU from ``os.wait4``, raw and
  net of a baseline (the median CPU of `spark --version`, i.e. interpreter +
  typer start-up), scaled to 5,000 tokens if the answer was shorter.
- stream end → exit: the child's last text-delta stamp vs the moment the
  parent's ``os.wait4`` returns.

Medians over ``--reps`` repetitions go in a table against the targets and into
``docs/benchmarks.md`` under ``## One-shot``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer

from spark_cli.bench.docs_section import KEEP_MARK as KEEP_MARK
from spark_cli.bench.docs_section import write_section as write_doc_section
from spark_cli.bench.engine_process import start_engine

SECTION = "## One-shot"
TARGETS = {"launch_to_request_s": 0.15, "cpu_net_per_5k_s": 0.2, "end_to_exit_s": 0.02}
_SAMPLE = 'def greet(name):\n    return "hello " + name\n\n\nprint(greet("spark"))\n'


@dataclass(frozen=True, slots=True)
class Repetition:
    launch_to_request_s: float
    cpu_raw_s: float
    end_to_exit_s: float
    output_tokens: int
    exit_code: int


def child_env(**extra: str) -> dict[str, str]:
    """The children's environment: like a user's shell, so bytecode is cached.

    ``PYTHONDONTWRITEBYTECODE`` would make every child compile spark from source
    (~70 ms more per launch than an installed copy, whose bytecode pip compiles);
    ``PYTHONUNBUFFERED`` is not what a user runs with either.
    """
    import os

    env = {**os.environ, **extra}
    for name in ("PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "SPARK_CONFIG_DIR"):
        env.pop(name, None)
    return env


def spark_command() -> list[str]:
    """How to launch spark as a user would: the console script beside this Python."""
    import shutil
    import sys

    script = Path(sys.executable).with_name("spark")
    if script.exists():
        return [str(script)]
    found = shutil.which("spark")
    return [found] if found else [sys.executable, "-m", "spark_cli"]


def _wait_cpu(proc: Any) -> tuple[int, float, float]:
    """(exit code, user+system CPU seconds, monotonic time the exit was seen)."""
    import os
    import time

    _pid, status, usage = os.wait4(proc.pid, 0)
    seen = time.monotonic()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_utime + usage.ru_stime, seen


def baseline_cpu(reps: int) -> float:
    """Median CPU seconds of `spark --version` (start-up that every command pays)."""
    import statistics
    import subprocess

    values = []
    for _ in range(reps):
        proc = subprocess.Popen([*spark_command(), "--version"], stdout=subprocess.DEVNULL,
                                env=child_env())
        values.append(_wait_cpu(proc)[1])
    return statistics.median(values)


def run_once(url: str, token: str, tokens: int, workdir: Path) -> Repetition:
    """One `spark edit --json` child against the engine; its three figures."""
    import json
    import subprocess
    import threading
    import time

    (workdir / "bench.py").write_text(_SAMPLE)
    env = child_env(SPARK_API_KEY=token)
    argv = [*spark_command(), "edit", "bench.py", "-m", "stream lorem", "--provider", "mock",
            "--base-url", url + "/v1", "--max-output-tokens", str(tokens), "--json"]
    lines: list[str] = []
    started = time.monotonic()
    proc = subprocess.Popen(argv, cwd=workdir, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout or ()), daemon=True)
    reader.start()
    code, cpu, exited = _wait_cpu(proc)
    reader.join(10)
    err = proc.stderr.read() if proc.stderr else ""
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()
    events = [json.loads(line) for line in lines if line.startswith("{")]
    sent = next((e["at"] for e in events if e.get("type") == "request_sent"), None)
    summary = next((e for e in events if e.get("type") == "summary"), None)
    if sent is None or summary is None:
        raise RuntimeError(f"spark edit (exit {code}) gave no request_sent/summary: "
                           f"{err.strip()[-500:]}")
    last = (summary.get("marks") or {}).get("last_delta_at") or sent
    return Repetition(launch_to_request_s=sent - started, cpu_raw_s=cpu,
                      end_to_exit_s=exited - last,
                      output_tokens=int(summary.get("output_tokens") or 0), exit_code=code)


def run_benchmark(reps: int, tokens: int, tps: float, workdir: Path) -> dict[str, Any]:
    """All repetitions against one engine process; medians and the raw runs."""
    import secrets
    import statistics

    token = secrets.token_urlsafe(12)
    engine = start_engine(token, "--brain", "lorem", "--tps", f"{tps:g}", "--ttft-ms", "0",
                          env=child_env())
    url = engine.url
    try:
        run_once(url, token, min(tokens, 50), workdir)  # warm-up: bytecode, engine, caches
        base = baseline_cpu(max(3, reps))
        runs = [run_once(url, token, tokens, workdir) for _ in range(reps)]
    finally:
        engine.stop()
    per_5k = [r.cpu_raw_s * 5000 / max(r.output_tokens, 1) for r in runs]
    net = [(r.cpu_raw_s - base) * 5000 / max(r.output_tokens, 1) for r in runs]
    return {
        "reps": reps, "tokens": tokens, "tps": tps, "baseline_cpu_s": base,
        "launch_to_request_s": statistics.median(r.launch_to_request_s for r in runs),
        "cpu_raw_per_5k_s": statistics.median(per_5k),
        "cpu_net_per_5k_s": statistics.median(net),
        "end_to_exit_s": statistics.median(r.end_to_exit_s for r in runs),
        "output_tokens": statistics.median(r.output_tokens for r in runs),
        "exit_codes": sorted({r.exit_code for r in runs}),
        "runs": runs,
    }


def table(figures: dict[str, Any]) -> str:
    """The result table (Markdown, also readable in a terminal)."""
    def row(name: str, key: str, target: float | None) -> str:
        value = figures[key]
        verdict = "" if target is None else ("met" if value <= target else "missed")
        goal = "" if target is None else f"≤ {target:g} s"
        return f"| {name} | {value:.3f} s | {goal} | {verdict} |"

    return "\n".join([
        "| metric (median) | spark | target | |",
        "|---|---|---|---|",
        row("launch → request", "launch_to_request_s", TARGETS["launch_to_request_s"]),
        row("CPU per 5,000 tokens (net of start-up)", "cpu_net_per_5k_s",
            TARGETS["cpu_net_per_5k_s"]),
        row("CPU per 5,000 tokens (raw, whole process)", "cpu_raw_per_5k_s", None),
        row("start-up CPU baseline (`spark --version`)", "baseline_cpu_s", None),
        row("stream end → exit", "end_to_exit_s", TARGETS["end_to_exit_s"]),
    ])


def write_section(path: Path, body: str) -> None:
    """Replace only the ``## One-shot`` section (hand-written notes after the keep mark stay)."""
    write_doc_section(path, SECTION, body)


def register(bench_app: typer.Typer) -> None:
    @bench_app.command("oneshot")
    def bench_oneshot(
        reps: int = typer.Option(7, "--reps", min=1, help="Repetitions (the median is kept)."),
        tokens: int = typer.Option(5000, "--tokens", min=1, help="Tokens per answer."),
        tps: float = typer.Option(2000.0, "--tps", min=1.0, help="Engine tokens per second."),
        docs: Path | None = typer.Option(
            None, "--docs", help="Markdown file to update (default: docs/benchmarks.md)."),
        no_docs: bool = typer.Option(False, "--no-docs", help="Only print, write no file."),
    ) -> None:
        """Time `spark edit` end to end against the engine in another process."""
        import platform
        import tempfile

        with tempfile.TemporaryDirectory(prefix="spark-bench-oneshot-") as tmp:
            try:
                figures = run_benchmark(reps, tokens, tps, Path(tmp))
            except RuntimeError as exc:
                typer.echo(f"spark bench oneshot: {exc}", err=True)
                raise typer.Exit(1) from None
        command = f"spark bench oneshot --reps {reps} --tokens {tokens} --tps {tps:g}"
        result = table(figures)
        typer.echo(f"oneshot: {reps} runs of {tokens} tokens at {tps:g} tok/s, "
                   f"answers of {figures['output_tokens']:.0f} tokens, "
                   f"exit codes {figures['exit_codes']}")
        typer.echo(result)
        if not no_docs:
            target = docs or Path("docs") / "benchmarks.md"
            body = (f"Command: `{command}` (Python {platform.python_version()}, "
                    f"{platform.machine()}). Engine in a separate process "
                    "(`spark engine serve --brain lorem --ttft-ms 0`); each run is a fresh "
                    "`spark edit --json` process. Clocks: CLOCK_MONOTONIC on both sides.\n\n"
                    + result + "\n")
            write_section(target, body)
            typer.echo(f"wrote {target} ({SECTION})")
