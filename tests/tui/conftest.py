"""TUI fixtures: a SparkApp over a real channel to the bundled engine (``tui_app``)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from waiting import wait_until

from spark_cli.session.config.settings import Settings, load_settings
from spark_cli.session.conversation import Session
from spark_cli.session.interaction import TurnEnded
from spark_cli.session.workspace.store import SessionStore
from spark_cli.tui.app import SparkApp
from spark_cli.tui.prompt.prompt import Prompt
from spark_cli.tui.setup import TuiSetup

PY = "def total_price(items):\n    return sum(items)\n"


def make_settings(root: Path, engine: Any, tmp: Path, **flags: Any) -> Settings:
    flags.setdefault("provider", "mock")
    flags.setdefault("model", "spark-lorem")
    flags.setdefault("max_output_tokens", 400)
    return load_settings(root, {"base_url": engine.url + "/v1", **flags},
                         {"SPARK_CONFIG_DIR": str(tmp / "cfg"), "SPARK_API_KEY": engine.token,
                          "SPARK_STATE_DIR": os.environ["SPARK_STATE_DIR"]})


@contextlib.asynccontextmanager
async def real_connect(settings: Settings) -> AsyncIterator[Any]:
    from spark_cli.cli.tui_cmd import connect

    async with connect(settings) as channel:
        yield channel


async def send_turn(app: SparkApp, pilot: Any, text: str) -> None:
    """Send ``text`` from the prompt; return once the Interaction says its turn ended."""
    ended: list[Any] = []
    sink = app.interaction.sink
    app.interaction.sink = lambda e: (ended.append(e) if isinstance(e, TurnEnded) else None,
                                      sink(e))[-1]
    app.query_one(Prompt).load_text(text)
    await pilot.press("enter")
    await wait_until(lambda: bool(ended))
    app.interaction.sink = sink


@pytest.fixture
def tui_connect() -> Any:
    """The CLI's real Connector (wiring + transports)."""
    return real_connect


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text(PY)
    return root


@pytest.fixture
def tui_app(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            engine_factory: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[SparkApp]]:
    """``await make(tps=..., **settings_flags)`` -> an unstarted SparkApp on a fresh engine."""
    monkeypatch.setenv("SPARK_STATE_DIR", str(tmp_path / "state"))

    async def make(*, tps: float = 2000, setup: dict[str, Any] | None = None,
                   **flags: Any) -> SparkApp:
        engine = await engine_factory(tps=tps)
        settings = make_settings(repo, engine, tmp_path, **flags)
        session = Session(None, repo, settings)
        return SparkApp(TuiSetup(session=session, connect=real_connect, store=SessionStore(repo),
                                 **(setup or {})))

    return make


class Lines:
    """An ``Output`` that keeps each note (and written block), for controllers without the
    app."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []
        self.blocks: list[Any] = []

    def note(self, text: str, style: str = "dim") -> None:
        self.lines.append((text, style))

    def write(self, renderable: Any) -> None:
        self.blocks.append(renderable)

    @property
    def text(self) -> str:
        return "\n".join(text for text, _ in self.lines)


@pytest.fixture
def lines() -> Lines:
    return Lines()
