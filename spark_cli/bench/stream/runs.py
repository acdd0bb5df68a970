"""The children of `spark bench stream`: each run as its own process, its stdout a pipe
or a pseudo-terminal (as a user's terminal), its CPU read when it exits."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading
from pathlib import Path

from spark_cli.bench.oneshot.child import edit_child
from spark_cli.bench.processes import EngineProcess, child_env, run_piped, wait_child
from spark_cli.record import record

FLOORS = {"socket": "spark_cli.bench.stream.floor", "floor": "spark_cli.bench.stream.floor_lib"}
"""Floor mode -> the module run as ``python -m``."""


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
    """Run ``argv`` with stdout and stderr on a pseudo-terminal (read and dropped); its CPU."""
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


def run_one(mode: str, wire: str, target: EngineProcess, tps: float, tokens: int, workdir: Path,
            baseline: Path | None = None) -> Run:
    """One child of ``mode`` (a floor, ``pipe``/``tty``/``json``, ``tui``) on ``wire`` asking for
    ``tokens`` tokens; spark from the source tree ``baseline`` when given."""
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
    """The headless TUI child (:mod:`spark_cli.bench.stream.tui_child`): its CPU is the turn's,
    measured inside it (start-up and the warm-up turn left out). Run by its path, so a baseline
    tree's app is measured by this tree's child, wherever that tree keeps its own."""
    argv = [sys.executable, "-P", str(Path(__file__).with_name("tui_child.py")),
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
