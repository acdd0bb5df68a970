"""Shared fixtures: the bundled engine on 127.0.0.1:0 (``engine``, ``engine_factory``)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

TEST_TOKEN = "test-token"


@pytest.fixture
async def engine_factory() -> AsyncIterator[Callable[..., Awaitable[Any]]]:
    """``await make(**overrides)`` -> a RunningEngine (EngineConfig fields as keywords;
    defaults: port 0, token "test-token", brain "rules"). All are stopped at teardown.
    ``brains=`` (a model -> brain callable) replaces the brain lookup."""
    from spark_cli.engine.core.config import EngineConfig
    from spark_cli.engine.serving.server import run_engine

    async with contextlib.AsyncExitStack() as stack:

        async def make(**overrides: Any) -> Any:
            brains = overrides.pop("brains", None)
            settings: dict[str, Any] = {"host": "127.0.0.1", "port": 0, "token": TEST_TOKEN,
                                        "brain": "rules"}
            settings.update(overrides)
            return await stack.enter_async_context(
                run_engine(EngineConfig(**settings), brains=brains)
            )

        yield make


@pytest.fixture
async def engine(engine_factory: Callable[..., Awaitable[Any]]) -> Any:
    """A RunningEngine with default pacing, port 0, token "test-token", brain "rules"."""
    return await engine_factory()
