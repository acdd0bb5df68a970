"""The `spark edit` children of the benches: one on a channel to an engine and its figures,
and the bundled engine's tiny edit as a new user runs it (no key, no base URL)."""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from typing import Any

from spark_cli.bench.processes import child_env, run_piped, spark_command
from spark_cli.record import record

HELLO = 'def greet(name):\n    return "hello " + name\n\n\nprint(greet("spark"))\n'
INSTRUCTION = "rename greet to welcome"


@record
class Repetition:
    """The figures of one `spark edit --json` child (``started``: the parent's clock before
    ``Popen``; the rest as :class:`~spark_cli.bench.processes.ChildUsage`)."""

    launch_to_request_s: float
    cpu_raw_s: float
    end_to_exit_s: float
    output_tokens: int
    exit_code: int
    started: float = 0.0
    peak_rss_kb: int = 0
    own_cpu_s: float = 0.0


def edit_child(channel: str, url: str, token: str, tokens: int, workdir: Path, *,
               json_lines: bool = True, config_extra: str = "",
               baseline: Path | None = None) -> tuple[list[str], dict[str, str]]:
    """Argv and env of a `spark edit` asking ``url`` for ``tokens`` (``baseline``: that tree)."""
    (workdir / "bench.py").write_text(HELLO)
    config_dir = workdir / f"config-{channel}"
    config_dir.mkdir(parents=True, exist_ok=True)
    kind = 'kind = "responses_sse"\n' if channel == "responses_sse" else ""
    (config_dir / "config.toml").write_text(kind + config_extra)
    provider = (["--provider", "mock"] if channel == "responses_ws"
                else ["--provider", "openai-compatible", "--model", "lorem"])
    # the bench's own cache of server facts (the window spark asked the engine for): the
    # warm-up asks, the repetitions read it, whatever other processes write to the user's
    env = child_env(SPARK_API_KEY=token, SPARK_CONFIG_DIR=str(config_dir),
                    SPARK_CACHE_DIR=str(workdir / "cache"),
                    **({"PYTHONPATH": str(baseline)} if baseline is not None else {}))
    command = spark_command() if baseline is None else [sys.executable, "-m", "spark_cli"]
    argv = [*command, "edit", "bench.py", "-m", "stream lorem", *provider, "--base-url",
            url + "/v1", "--max-output-tokens", str(tokens)]
    return argv + (["--json"] if json_lines else []), env


def run_once(url: str, token: str, tokens: int, workdir: Path,
             channel: str = "responses_ws", config_extra: str = "") -> Repetition:
    """One `spark edit --json` child against the engine on ``channel``; its figures."""
    argv, env = edit_child(channel, url, token, tokens, workdir, config_extra=config_extra)
    run = run_piped(argv, workdir, env)
    usage = run.usage
    events = [json.loads(line) for line in run.out.splitlines() if line.startswith("{")]
    sent = next((e["at"] for e in events if e.get("type") == "request_sent"), None)
    summary = next((e for e in events if e.get("type") == "summary"), None)
    if sent is None or summary is None:
        raise RuntimeError(f"spark edit on {channel} (exit {usage.exit_code}) gave no "
                           f"request_sent/summary: {run.err.strip()[-500:]}")
    last = (summary.get("marks") or {}).get("last_delta_at") or sent
    return Repetition(sent - run.started, usage.cpu_s, usage.exited_at - last,
                      int(summary.get("output_tokens") or 0), usage.exit_code, run.started,
                      usage.peak_rss_kb, usage.own_cpu_s)


def run_bundled(reps: int, workdir: Path) -> dict[str, Any]:
    """Median and minimum wall and CPU of ``reps`` tiny bundled edits (after one warm-up)."""
    (workdir / "config").mkdir(parents=True, exist_ok=True)
    env = child_env(SPARK_CONFIG_DIR=str(workdir / "config"))
    walls: list[float] = []
    cpus: list[float] = []
    for rep in range(reps + 1):
        target = workdir / "hello.py"
        target.write_text(HELLO)
        run = run_piped([*spark_command(), "edit", "hello.py", "-m", INSTRUCTION], workdir, env)
        code = run.usage.exit_code
        if code != 0 or "def welcome(name):" not in target.read_text():
            raise RuntimeError(f"the bundled tiny edit failed (exit {code}): "
                               f"{run.err.strip()[-500:]}")
        if rep:  # the first run warms bytecode and caches
            walls.append(run.usage.exited_at - run.started)
            cpus.append(run.usage.cpu_s)
    return {"wall_s": statistics.median(walls), "wall_min_s": min(walls),
            "cpu_s": statistics.median(cpus), "cpu_min_s": min(cpus), "reps": reps}
