"""Shared fixtures: the bundled engine on 127.0.0.1:0 (``engine``, ``engine_factory``).

``engine_server`` picks the server ``run_engine`` uses: ``"uvicorn"`` (HTTP and the
WebSocket, the default) or ``"websockets"`` (the WebSocket alone, as ``spark edit`` and
the TUI start it). A test marked ``both_servers`` (``BOTH_SERVERS`` in
``tests/engine/engine_client.py``) that uses the engine runs on both. Tests import the
waiting helpers as ``from waiting import wait_until`` (tests/waiting.py)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

_HERE = str(Path(__file__).parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

TEST_TOKEN = "test-token"
USER_DIRS = ("SPARK_CONFIG_DIR", "SPARK_STATE_DIR", "SPARK_CACHE_DIR")


@pytest.fixture(autouse=True, scope="session")
def _no_user_dirs(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The suite (and every process it starts) keeps spark's config, state and cache in a
    temporary folder, never the user's: a test that needs its own sets the variable."""
    for name in USER_DIRS:
        if name not in os.environ:
            os.environ[name] = str(tmp_path_factory.mktemp(name.lower()))
ENGINE_SERVERS = ("uvicorn", "websockets")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "both_servers: run an engine test on both of "
                            "run_engine's servers (uvicorn, websockets): they must behave alike")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if (metafunc.definition.get_closest_marker("both_servers") is not None
            and "engine_server" in metafunc.fixturenames):
        metafunc.parametrize("engine_server", ENGINE_SERVERS, indirect=True)


@pytest.fixture
def engine_server(request: pytest.FixtureRequest) -> str:
    """``"uvicorn"`` unless a test parametrizes it (indirectly) with ``"websockets"``."""
    server = getattr(request, "param", "uvicorn")
    assert server in ENGINE_SERVERS, server
    return str(server)


@pytest.fixture
async def engine_factory(engine_server: str) -> AsyncIterator[Callable[..., Awaitable[Any]]]:
    """``await make(**overrides)`` -> a RunningEngine (EngineConfig fields as keywords;
    defaults: port 0, token "test-token", brain "rules"). All are stopped at teardown.
    ``brains=`` (a model -> brain callable) replaces the brain lookup. The server is
    ``engine_server``'s."""
    from spark_cli.engine.core.config import EngineConfig
    from spark_cli.engine.serving.server import run_engine

    async with contextlib.AsyncExitStack() as stack:

        async def make(**overrides: Any) -> Any:
            brains = overrides.pop("brains", None)
            settings: dict[str, Any] = {"host": "127.0.0.1", "port": 0, "token": TEST_TOKEN,
                                        "brain": "rules"}
            settings.update(overrides)
            return await stack.enter_async_context(
                run_engine(EngineConfig(**settings), brains=brains,
                           http=engine_server == "uvicorn")
            )

        yield make


@pytest.fixture
async def engine(engine_factory: Callable[..., Awaitable[Any]]) -> Any:
    """A RunningEngine with default pacing, port 0, token "test-token", brain "rules"."""
    return await engine_factory()

