"""`spark bench tls`: `spark edit` reading a one-token-per-message stream over TLS.

The engine runs in its own process (``--per-token``, the lorem brain) behind
:mod:`spark_cli.bench.tls_relay` (a run-time certificate authority the
children trust through ``SSL_CERT_FILE``). Each repetition runs `spark edit`
to a pipe on each wire for ``--tokens`` tokens, from this tree and, with
``--baseline``, from another source tree, interleaved (A B, then B A). Per
run: CPU (user + system, ``os.wait4``) and minor page faults; with
``--strace``, one more run per tree and wire under ``strace -f -c`` counts the
allocator's system calls (mmap, mremap, munmap, brk) and the socket reads.
``--fixed-mmap-threshold`` runs the children with glibc's ``mmap`` threshold
fixed at 128 KiB (``MALLOC_MMAP_THRESHOLD_``), as an allocator without glibc's
dynamic threshold behaves. Measures ``transport/read_size.py`` (docs/benchmarks.md,
``## Stream``).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from spark_cli.bench.oneshot_child import channel_args, child_env, spark_command
from spark_cli.record import record

if TYPE_CHECKING:
    from spark_cli.bench.tls_relay import Relay

WIRES = {"responses_ws": "Responses, WebSocket", "chat_sse": "Chat Completions, SSE"}
TRACED = ("mmap", "mremap", "munmap", "brk", "recvfrom")
FIXED_THRESHOLD = {"MALLOC_MMAP_THRESHOLD_": "131072"}
_CAPPED = "output cap"
"""What `spark edit` says when the answer ran to ``--max-output-tokens`` (every token read)."""


@record
class Figures:
    """One client's runs: CPU, minor page faults and syscall counts."""

    cpu_s: tuple[float, ...]
    minor_faults: tuple[int, ...]
    syscalls: dict[str, int]
    """:data:`TRACED` -> calls in the ``--strace`` run (empty without it)."""


def _run(argv: list[str], workdir: Path, env: dict[str, str]) -> tuple[float, int]:
    """One child to the end: its CPU seconds and minor page faults."""
    err_path = workdir / "stderr.txt"
    with err_path.open("w") as err:
        proc = subprocess.Popen(argv, cwd=workdir, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    said = err_path.read_text()
    if _CAPPED not in said:
        raise RuntimeError(f"`spark edit` did not read the whole answer: {said.strip()[-300:]}")
    return usage.ru_utime + usage.ru_stime, usage.ru_minflt


def _strace(argv: list[str], workdir: Path, env: dict[str, str]) -> dict[str, int]:
    """:data:`TRACED` -> calls, from one run under ``strace -f -c``."""
    out = workdir / "strace.txt"
    _run(["strace", "-f", "-c", "-o", str(out), "-e", "trace=" + ",".join(TRACED), *argv],
         workdir, env)
    counts = dict.fromkeys(TRACED, 0)
    for line in out.read_text().splitlines():
        fields = line.split()
        if len(fields) >= 5 and fields[-1] in counts and fields[3].isdigit():
            counts[fields[-1]] = int(fields[3])
    return counts


def measure(reps: int, tokens: int, tps: float, workdir: Path, wires: tuple[str, ...],
            baseline: Path | None = None, strace: bool = False,
            fixed_threshold: bool = False) -> dict[tuple[str, str], Figures]:
    """(wire, "spark" | "baseline") -> figures; every repetition runs each tree once per wire."""
    import asyncio
    import threading

    from spark_cli.bench.engine_process import start_engine
    from spark_cli.bench.tls_relay import serve_relay

    token = "bench-tls"
    engine = start_engine(token, "--brain", "lorem", "--tps", f"{tps:g}", "--ttft-ms", "0",
                          "--per-token", env=child_env())
    host, port = engine.url.rsplit("/", 1)[1].rsplit(":", 1)
    relays: list[Relay] = []
    ready = threading.Event()
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()

    async def relay_until_stopped() -> None:
        async with serve_relay((host, int(port))) as relay:
            relays.append(relay)
            ready.set()
            await stop.wait()

    thread = threading.Thread(target=loop.run_until_complete, args=(relay_until_stopped(),),
                              daemon=True)
    thread.start()
    try:
        if not ready.wait(30) or not relays:
            raise RuntimeError("the TLS relay did not start")
        relay = relays[0]
        (workdir / "ca.pem").write_bytes(relay.ca_pem)
        trees: dict[str, Path | None] = {"spark": None}
        if baseline is not None:
            trees["baseline"] = baseline
        runs: dict[tuple[str, str], list[tuple[float, int]]] = {}
        counts: dict[tuple[str, str], dict[str, int]] = {}
        (workdir / "bench.py").write_text("x = 1\n")
        for rep in range(reps + (1 if strace else 0)):
            for wire in wires:
                order = list(trees.items()) if rep % 2 == 0 else list(trees.items())[::-1]
                for name, tree in order:
                    argv, env = _child(wire, relay, token, tokens, workdir, tree,
                                       fixed_threshold)
                    if rep == reps:
                        counts[(wire, name)] = _strace(argv, workdir, env)
                    else:
                        runs.setdefault((wire, name), []).append(_run(argv, workdir, env))
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(10)
        if not thread.is_alive():
            loop.close()
        engine.stop()
    return {key: Figures(tuple(c for c, _ in got), tuple(f for _, f in got),
                         counts.get(key, {})) for key, got in runs.items()}


def _child(wire: str, relay: Relay, token: str, tokens: int, workdir: Path,
           tree: Path | None, fixed_threshold: bool) -> tuple[list[str], dict[str, str]]:
    from urllib.parse import urlsplit

    url = relay.url
    config_dir = workdir / f"config-{wire}"
    flags = channel_args(wire, url, config_dir)
    command = spark_command() if tree is None else [sys.executable, "-m", "spark_cli"]
    argv = [*command, "edit", "bench.py", "-m", "stream lorem", *flags,
            "--max-output-tokens", str(tokens)]
    extra = {"SPARK_API_KEY": token, "SPARK_CONFIG_DIR": str(config_dir),
             "SSL_CERT_FILE": str(workdir / "ca.pem"),
             "NO_PROXY": urlsplit(url).hostname or ""}
    if tree is not None:
        extra["PYTHONPATH"] = str(tree)
    if fixed_threshold:
        extra.update(FIXED_THRESHOLD)
    return argv, child_env(**extra)


def table(figures: dict[tuple[str, str], Figures]) -> str:
    rows = ["| wire | tree | CPU per run (median; runs) | minor faults (median) | "
            + " / ".join(TRACED) + " (strace run) |", "|---|---|---|---|---|"]
    for (wire, name), f in figures.items():
        runs = ", ".join(f"{c:.3f}" for c in f.cpu_s)
        calls = " / ".join(f"{f.syscalls[t]:,}" for t in TRACED) if f.syscalls else "—"
        rows.append(f"| {WIRES[wire]} | {name} | {statistics.median(f.cpu_s):.3f} s ({runs}) "
                    f"| {statistics.median(f.minor_faults):,.0f} | {calls} |")
    return "\n".join(rows)


def register(bench_app: typer.Typer) -> None:
    @bench_app.command("tls")
    def bench_tls(
        reps: int = typer.Option(4, "--reps", min=1, help="Repetitions (medians)."),
        tokens: int = typer.Option(5000, "--tokens", min=2, help="Tokens per answer."),
        tps: float = typer.Option(2000.0, "--tps", min=1.0, help="Engine tokens per second."),
        wires: str = typer.Option(",".join(WIRES), "--wires", help="Wires, comma-separated."),
        baseline: Path | None = typer.Option(
            None, "--baseline", help="Also run `spark edit` from this source tree (a "
            "checkout of another commit, bytecode compiled): before/after, paired."),
        strace: bool = typer.Option(False, "--strace",
                                    help="Count system calls in one more run (strace -f -c)."),
        fixed_threshold: bool = typer.Option(
            False, "--fixed-mmap-threshold",
            help="Children run with glibc's mmap threshold fixed at 128 KiB."),
    ) -> None:
        """`spark edit` over TLS (the engine behind a TLS relay): CPU, page faults and the
        allocator's system calls per one-token-per-message answer, on each wire."""
        on = tuple(w.strip() for w in wires.split(",") if w.strip())
        if not on or any(w not in WIRES for w in on):
            raise typer.BadParameter(f"--wires: {wires!r} (known: {', '.join(WIRES)})")
        if strace and shutil.which("strace") is None:
            raise typer.BadParameter("--strace: strace is not on PATH")
        with tempfile.TemporaryDirectory(prefix="spark-bench-tls-") as tmp:
            try:
                figures = measure(reps, tokens, tps, Path(tmp), on, baseline, strace,
                                  fixed_threshold)
            except RuntimeError as exc:
                typer.echo(f"spark bench tls: {exc}", err=True)
                raise typer.Exit(1) from None
        typer.echo(f"{reps} paired run(s) per wire of {tokens} tokens at {tps:g} tok/s over "
                   f"TLS{', mmap threshold fixed' if fixed_threshold else ''}")
        typer.echo(table(figures))
