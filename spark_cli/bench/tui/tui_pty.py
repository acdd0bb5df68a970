"""`spark bench tui`, real-terminal half: `spark` in a pseudo-terminal, timed from outside:
:func:`launch`, :func:`esc` (either driver of :mod:`.tui_child`), :func:`import_profile`."""

from __future__ import annotations

import fcntl
import os
import re
import select
import statistics
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from spark_cli.bench.processes import child_env, cpu_seconds, spark_command

ROWS, COLS = 30, 120
FIRST_FRAME = "Enter sends"
"""On screen once the app drew its first frame (the transcript's help line)."""
READY = "│ ready"
"""The HUD once the provider is connected (and again once a turn ended)."""
STREAMING = "│ streaming"
TYPE_AHEAD = "typed before the prompt existed"
_ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|.)")
_IMPORT = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


class Pty:
    """A child process on a pseudo-terminal; ``text`` is its output without escape codes."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        self.spawned = time.monotonic()
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd,
                                     env=env, start_new_session=True, close_fds=True)
        os.close(slave)
        self.master = master
        self.raw = ""
        self.text = ""

    def write(self, data: str) -> float:
        """Write ``data`` as typed keys; the monotonic time it was written."""
        os.write(self.master, data.encode())
        return time.monotonic()

    def wait_for(self, marker: str, timeout: float, start: int = 0) -> float | None:
        """Read until ``marker`` shows in ``text[start:]``; the monotonic time it was read."""
        deadline = time.monotonic() + timeout
        while marker not in self.text[start:]:
            left = deadline - time.monotonic()
            if left <= 0 or not self._read(left):
                return None
        return time.monotonic()

    def pump(self, seconds: float) -> None:
        """Read everything that arrives for ``seconds``."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0 and self._read(left):
            pass

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 65536).decode("utf-8", "replace")
        except OSError:  # the child closed the terminal
            return False
        self.raw += chunk
        self.text += _ANSI.sub("", chunk)  # a sequence cut in two leaves a few stray bytes
        return True

    def close(self) -> None:
        """Ctrl+Q, then terminate if it does not exit."""
        try:
            self.write("\x11")
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        os.close(self.master)


def _env(**extra: str) -> dict[str, str]:
    return child_env(TERM="xterm-256color", COLORTERM="truecolor", **extra)


def launch(workdir: Path, reps: int) -> dict[str, object]:
    """Median spawn → first frame / → connected over ``reps`` launches; type-ahead check."""
    first, ready, cpu, kept = [], [], [], 0
    for _ in range(reps):
        pty = Pty(spark_command(), workdir, _env())
        try:
            pty.write(TYPE_AHEAD)  # at once: the interpreter has not even started
            shown = pty.wait_for(FIRST_FRAME, 20.0)
            cpu.append(cpu_seconds(pty.proc.pid))
            connected = pty.wait_for(READY, 20.0)
            if shown is None or connected is None:
                raise RuntimeError(f"spark never showed its prompt: {pty.text[-300:]!r}")
            first.append(shown - pty.spawned)
            ready.append(connected - pty.spawned)
            kept += pty.wait_for(TYPE_AHEAD, 3.0) is not None
        finally:
            pty.close()
    return {"reps": reps, "first_frame_s": statistics.median(first),
            "first_frame_cpu_s": statistics.median(cpu),
            "connected_s": statistics.median(ready), "type_ahead_kept": kept}


def esc(url: str, token: str, workdir: Path, driver: str, samples: int,
        key: str = "\x1b") -> list[float]:
    """Esc byte (or ``key``) → HUD ``ready`` (seconds), ``samples`` turns with ``driver``."""
    argv = [sys.executable, "-m", "spark_cli.bench.tui.tui_child", driver, url + "/v1"]
    pty = Pty(argv, workdir, _env(SPARK_API_KEY=token))
    latencies = []
    try:
        if pty.wait_for(READY, 20.0) is None:
            raise RuntimeError(f"spark ({driver} driver) never connected: {pty.text[-300:]!r}")
        for index in range(samples):
            mark = len(pty.text)
            pty.write(f"go {index}\r")
            if pty.wait_for(STREAMING, 10.0, mark) is None:
                raise RuntimeError(f"the turn never streamed: {pty.text[-300:]!r}")
            pty.pump(0.3)  # keep reading: a terminal that lags behind would delay the answer
            mark = len(pty.text)
            pressed = pty.write(key)
            stopped = pty.wait_for(READY, 5.0, mark)
            if stopped is None:
                raise RuntimeError(f"Esc did not stop the turn ({driver} driver)")
            latencies.append(stopped - pressed)
            pty.pump(0.2)
    finally:
        pty.close()
    return latencies


def import_profile(workdir: Path, top: int = 12) -> list[tuple[str, float]]:
    """(package, ms of own import time) before `spark`'s first frame, largest first."""
    pty = Pty(spark_command(), workdir, _env(PYTHONPROFILEIMPORTTIME="1"))
    try:
        if pty.wait_for(FIRST_FRAME, 20.0) is None:
            raise RuntimeError("spark never showed its prompt (import profile)")
        before = pty.raw[:pty.raw.find(FIRST_FRAME)]
    finally:
        pty.close()
    totals: dict[str, float] = {}
    for match in _IMPORT.finditer(before):
        name = match.group(4)
        package = ".".join(name.split(".")[:2]) if name.startswith("spark_cli.") else \
            name.split(".")[0]
        totals[package] = totals.get(package, 0.0) + int(match.group(1)) / 1000
    return sorted(totals.items(), key=lambda item: -item[1])[:top]
