"""The children of `spark bench stream`: each run as its own process, its stdout a pipe
or a pseudo-terminal (as a user's terminal), its CPU read when it exits."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from spark_cli.bench.child_usage import wait_child
from spark_cli.bench.oneshot import channel_args, child_env, spark_command

_SAMPLE = 'def greet(name):\n    return "hello " + name\n'
FLOORS = {"socket": "spark_cli.bench.stream_floor", "floor": "spark_cli.bench.stream_floor_lib"}
"""Floor mode -> the module run as ``python -m``."""


@dataclass(frozen=True, slots=True)
class Run:
    cpu_s: float
    tokens: int
    messages: int
    """Text messages the floor counted (0 for spark's runs)."""


@dataclass(frozen=True, slots=True)
class Target:
    """The engine a run asks."""

    url: str
    ws_url: str
    token: str


def _piped(argv: list[str], workdir: Path, env: dict[str, str]) -> tuple[float, str]:
    """Run ``argv`` with stdout a pipe; (its CPU, its stdout)."""
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


def _on_pty(argv: list[str], workdir: Path, env: dict[str, str]) -> float:
    """Run ``argv`` with stdout and stderr on a pseudo-terminal (read and dropped); its CPU."""
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, cwd=workdir, env=env, stdout=slave, stderr=slave,
                            stdin=subprocess.DEVNULL)
    os.close(slave)

    def drain() -> None:
        try:
            while os.read(master, 65536):
                pass
        except OSError:
            pass  # EIO: the child closed the terminal

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    usage = wait_child(proc)
    reader.join(10)
    os.close(master)
    return usage.cpu_s


def run_one(mode: str, wire: str, target: Target, tokens: int, workdir: Path,
            baseline: Path | None = None) -> Run:
    """One child of ``mode`` (a floor, or ``pipe``/``tty``/``json``) on ``wire`` asking for
    ``tokens`` tokens; spark from the source tree ``baseline`` when given."""
    if mode in FLOORS:
        url = target.ws_url if wire == "responses_ws" else target.url + "/v1"
        argv = [sys.executable, "-m", FLOORS[mode], "ws" if wire == "responses_ws" else "chat",
                url, target.token, str(tokens)]
        cpu, out = _piped(argv, workdir, child_env())
        words = out.split()
        return Run(cpu, tokens, int(words[0]) if words else 0)
    (workdir / "bench.py").write_text(_SAMPLE)
    config_dir = workdir / f"config-{wire}"
    flags = channel_args(wire, target.url, config_dir)
    command = spark_command() if baseline is None else [sys.executable, "-m", "spark_cli"]
    argv = [*command, "edit", "bench.py", "-m", "stream lorem", *flags,
            "--max-output-tokens", str(tokens)] + (["--json"] if mode == "json" else [])
    extra = {"SPARK_API_KEY": target.token, "SPARK_CONFIG_DIR": str(config_dir)}
    if baseline is not None:
        extra["PYTHONPATH"] = str(baseline)
    env = child_env(**extra)
    if mode == "tty":
        return Run(_on_pty(argv, workdir, env), tokens, 0)
    cpu, _ = _piped(argv, workdir, env)
    return Run(cpu, tokens, 0)
