"""The bundled engine in its own process, for every benchmark: start, read its URLs, measure, stop.

``start_engine(token, *flags)`` runs ``spark engine serve --port 0 --token T FLAGS``, waits
for its URL line and returns an :class:`EngineProcess`, whose CPU, memory and open file
descriptors can be read from ``/proc`` while it runs (Linux).
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from spark_cli.bench.child_usage import cpu_seconds, spark_command

_URLS = re.compile(r"(ws://\S+/v1/responses) \((http://\S+?)\)")


@dataclass
class EngineProcess:
    """An engine running in its own process, and where to reach it."""

    proc: subprocess.Popen[str]
    ws_url: str
    """``ws://HOST:PORT/v1/responses``."""
    url: str
    """``http://HOST:PORT`` (the OpenAI base URL is ``url + "/v1"``)."""
    token: str

    @property
    def pid(self) -> int:
        return self.proc.pid

    def cpu_seconds(self) -> float:
        """User + system CPU of the engine process so far."""
        return cpu_seconds(self.pid)

    def rss_bytes(self) -> int:
        """Resident memory now (``VmRSS``); 0 when unreadable."""
        return self._status_bytes("VmRSS:")

    def peak_rss_bytes(self) -> int:
        """The most resident memory so far (``VmHWM``); 0 when unreadable."""
        return self._status_bytes("VmHWM:")

    def _status_bytes(self, key: str) -> int:
        try:
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith(key):
                    return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 0

    def open_fds(self) -> int:
        """Open file descriptors now; -1 when unreadable."""
        try:
            return len(os.listdir(f"/proc/{self.pid}/fd"))
        except OSError:
            return -1

    def stop(self) -> None:
        """Terminate (kill after 5 s) and close its pipes."""
        self.proc.terminate()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()


def start_engine(token: str, *flags: str, env: dict[str, str] | None = None,
                 stderr: int | None = subprocess.DEVNULL, timeout: float = 30.0) -> EngineProcess:
    """``spark engine serve --port 0 --token TOKEN FLAGS`` in a child process, once it
    listens. ``stderr`` is where its log goes (``subprocess.PIPE`` to read it after
    :meth:`EngineProcess.stop`). Raises ``RuntimeError`` when no URL line comes."""
    argv = [*spark_command(), "engine", "serve", "--port", "0", "--token", token, *flags]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=stderr, text=True, env=env)
    found: list[tuple[str, str]] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            match = _URLS.search(line)
            if match:
                found.append((match.group(1), match.group(2)))
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout)
    if not found:
        proc.kill()
        _out, err = proc.communicate(timeout=5)
        raise RuntimeError(f"the engine did not print its URL within {timeout:g} s: "
                           + " ".join(argv) + (f": {err.strip()[-500:]}" if err else ""))
    ws_url, url = found[0]
    return EngineProcess(proc, ws_url, url, token)
