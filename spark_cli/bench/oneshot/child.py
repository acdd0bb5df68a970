"""One `spark edit --json` child of `spark bench oneshot` on one channel, and its figures.

Shared by the bench's channel runs (:mod:`spark_cli.bench.oneshot.oneshot`) and its side-by-side
runs with Codex CLI (:mod:`spark_cli.bench.oneshot.rival`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from spark_cli.bench.child_usage import wait_child
from spark_cli.record import record

_SAMPLE = 'def greet(name):\n    return "hello " + name\n\n\nprint(greet("spark"))\n'


@record
class Repetition:
    """The figures of one `spark edit --json` child."""

    launch_to_request_s: float
    cpu_raw_s: float
    end_to_exit_s: float
    output_tokens: int
    exit_code: int
    started: float = 0.0
    """The parent's ``time.monotonic()`` just before ``Popen``."""
    peak_rss_kb: int = 0
    """The child's ``ru_maxrss`` from ``os.wait4`` (KiB on Linux)."""
    own_cpu_s: float = 0.0
    """The child's CPU without the processes it started (``spark_cli.bench.child_usage``)."""


def child_env(**extra: str) -> dict[str, str]:
    """The children's environment: like a user's shell, so bytecode is cached.

    ``PYTHONDONTWRITEBYTECODE`` would make every child compile spark from source
    (~70 ms more per launch than an installed copy, whose bytecode pip compiles);
    ``PYTHONUNBUFFERED`` is not what a user runs with either. The provider
    variables and the cache directory are dropped (``extra`` sets what a run needs),
    so a user's keys, settings and cached server facts never leak into the figures.
    """
    env = dict(os.environ)
    for name in ("PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "SPARK_CONFIG_DIR",
                 "SPARK_CACHE_DIR", "SPARK_API_KEY", "SPARK_PROVIDER", "SPARK_MODEL",
                 "SPARK_BASE_URL", "OPENAI_API_KEY", "CEREBRAS_API_KEY"):
        env.pop(name, None)
    env.update(extra)
    return env


def spark_command() -> list[str]:
    """How to launch spark as a user would: the console script beside this Python."""
    script = Path(sys.executable).with_name("spark")
    if script.exists():
        return [str(script)]
    found = shutil.which("spark")
    return [found] if found else [sys.executable, "-m", "spark_cli"]


def channel_args(channel: str, url: str, config_dir: Path, extra: str = "") -> list[str]:
    """The `spark edit` flags that pick ``channel`` at the engine ``url`` (and its config,
    plus ``extra`` TOML: `spark bench mcp`'s servers)."""
    config_dir.mkdir(parents=True, exist_ok=True)
    kind = 'kind = "responses_sse"\n' if channel == "responses_sse" else ""
    (config_dir / "config.toml").write_text(kind + extra)
    if channel == "responses_ws":
        return ["--provider", "mock", "--base-url", url + "/v1"]
    return ["--provider", "openai-compatible", "--model", "lorem", "--base-url", url + "/v1"]


def run_once(url: str, token: str, tokens: int, workdir: Path,
             channel: str = "responses_ws", config_extra: str = "") -> Repetition:
    """One `spark edit --json` child against the engine on ``channel``; its figures."""
    (workdir / "bench.py").write_text(_SAMPLE)
    config_dir = workdir / f"config-{channel}"
    flags = channel_args(channel, url, config_dir, config_extra)
    # the bench's own cache of server facts (the window spark asked the engine for): the
    # warm-up asks, the repetitions read it, whatever other processes write to the user's
    env = child_env(SPARK_API_KEY=token, SPARK_CONFIG_DIR=str(config_dir),
                    SPARK_CACHE_DIR=str(workdir / "cache"))
    argv = [*spark_command(), "edit", "bench.py", "-m", "stream lorem", *flags,
            "--max-output-tokens", str(tokens), "--json"]
    lines: list[str] = []
    started = time.monotonic()
    proc = subprocess.Popen(argv, cwd=workdir, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout or ()), daemon=True)
    reader.start()
    usage = wait_child(proc)
    code, cpu, exited = usage.exit_code, usage.cpu_s, usage.exited_at
    reader.join(10)
    err = proc.stderr.read() if proc.stderr else ""
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()
    events = [json.loads(line) for line in lines if line.startswith("{")]
    sent = next((e["at"] for e in events if e.get("type") == "request_sent"), None)
    summary = next((e for e in events if e.get("type") == "summary"), None)
    if sent is None or summary is None:
        raise RuntimeError(f"spark edit on {channel} (exit {code}) gave no request_sent/"
                           f"summary: {err.strip()[-500:]}")
    last = (summary.get("marks") or {}).get("last_delta_at") or sent
    return Repetition(launch_to_request_s=sent - started, cpu_raw_s=cpu,
                      end_to_exit_s=exited - last,
                      output_tokens=int(summary.get("output_tokens") or 0), exit_code=code,
                      started=started, peak_rss_kb=usage.peak_rss_kb, own_cpu_s=usage.own_cpu_s)
