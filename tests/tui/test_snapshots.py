"""SVG snapshots of the main states: idle, streaming with the HUD, a refused edit, the queue,
waiting on a 429. The states are made of real session events fed to the app's sink (a live
stream's timing would make the pictures differ run to run); the channel does no I/O."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from spark_cli.edits.model.outcome import EditApplied, RefusedEdit
from spark_cli.protocol.channel import Capabilities, TurnRequest
from spark_cli.session.config.settings import load_settings
from spark_cli.session.conversation import Session
from spark_cli.session.events import (
    EditLanded,
    EditRefused,
    ProseDelta,
    RequestSent,
    WaitingToRetry,
)
from spark_cli.session.interaction import QueueChanged, TurnStarted
from spark_cli.tui.app import SparkApp
from spark_cli.tui.setup import TuiSetup

SIZE = (100, 26)
DIFF = ("--- a/src/shop/cart.py\n+++ b/src/shop/cart.py\n@@ -3,4 +3,4 @@\n"
        "-def total_price(cart):\n+def cart_total(cart):\n     cents = 0\n")


class NullChannel:
    """A channel that is always ready and never streams (the states are fed by hand)."""

    capabilities = Capabilities(steer=True)

    async def stream(self, request: TurnRequest) -> AsyncIterator[Any]:
        raise AssertionError("the snapshot tests feed events; nothing streams")
        yield  # pragma: no cover

    async def steer(self, text: str) -> None: ...
    async def stop(self) -> None: ...
    async def warm(self, request: TurnRequest | None = None) -> None: ...
    async def aclose(self) -> None: ...


@contextlib.asynccontextmanager
async def null_connect(settings: Any) -> AsyncIterator[NullChannel]:
    yield NullChannel()


@pytest.fixture
def make_app(tmp_path: Path) -> Callable[[], SparkApp]:
    root = tmp_path / "shop"
    root.mkdir()
    settings = load_settings(root, {"provider": "mock", "model": "spark-rules"},
                             {"SPARK_CONFIG_DIR": str(tmp_path / "cfg")})

    def make() -> SparkApp:
        return SparkApp(TuiSetup(session=Session(None, root, settings), connect=null_connect))

    return make


def _feed(app: SparkApp, *events: Any) -> None:
    app.feed.painter.clock = lambda: 1000.0  # type: ignore[union-attr]  # a fixed HUD clock
    for event in events:
        app.feed.on_event(event)


def _figures(app: SparkApp) -> None:
    """Fixed live figures (the real ones depend on the machine's clock)."""
    hud = app.feed.state
    hud.ttft_s, hud.tokens_per_s, hud.frame_ms = 0.042, 1497.0, 3.1
    hud.context_tokens = 2100
    app.query_one("#hud").show(hud, 1000.0)  # type: ignore[attr-defined]


def _streaming(app: SparkApp) -> None:
    _feed(app, TurnStarted("rename total_price to cart_total", "sent"), RequestSent(1.0),
          ProseDelta("Renaming `total_price` to `cart_total` in the cart and its tests.\n\n"),
          EditLanded(EditApplied("src/shop/cart.py", 1, DIFF)),
          ProseDelta("Now the tests, which still import the old na"))
    app.feed.painter.frame()  # type: ignore[union-attr]
    app.feed.state.state = "streaming"
    _figures(app)


def test_idle(snap_compare: Any, make_app: Callable[[], SparkApp]) -> None:
    async def before(pilot: Any) -> None:
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=before)


def test_streaming_with_hud(snap_compare: Any, make_app: Callable[[], SparkApp]) -> None:
    async def before(pilot: Any) -> None:
        await pilot.pause()
        _streaming(pilot.app)
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=before)


def test_refused_edit(snap_compare: Any, make_app: Callable[[], SparkApp]) -> None:
    async def before(pilot: Any) -> None:
        await pilot.pause()
        _streaming(pilot.app)
        _feed(pilot.app, EditRefused(RefusedEdit(
            "tests/test_cart.py", "not_found", 1,
            "tests/test_cart.py: hunk 1 not found: no line matches "
            "'from shop.cart import total_price'; quote the file's lines exactly")))
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=before)


def test_queue(snap_compare: Any, make_app: Callable[[], SparkApp]) -> None:
    async def before(pilot: Any) -> None:
        await pilot.pause()
        _streaming(pilot.app)
        _feed(pilot.app, QueueChanged(("add a docstring to cart_total",
                                       "then remove the print calls"), False))
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=before)


def test_waiting_on_a_429(snap_compare: Any, make_app: Callable[[], SparkApp]) -> None:
    async def before(pilot: Any) -> None:
        await pilot.pause()
        _feed(pilot.app, TurnStarted("rename total_price to cart_total", "sent"),
              RequestSent(1.0),
              WaitingToRetry(seconds=4.0, reason="rate limited (429)", attempt=1))
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=before)


def test_command_popup(snap_compare: Any, make_app: Callable[[], SparkApp]) -> None:
    async def before(pilot: Any) -> None:
        await pilot.press("slash", "d")
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=before)


def test_resumed_transcript(snap_compare: Any, tmp_path: Path,
                            monkeypatch: pytest.MonkeyPatch) -> None:
    from spark_cli.protocol.channel import Message
    from spark_cli.session.workspace.store import SessionStore, ShownItem

    monkeypatch.setenv("SPARK_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    root = tmp_path / "shop"
    root.mkdir()
    store = SessionStore(root)
    store.save_conversation(
        [Message("user", "rename total_price to cart_total"), Message("assistant", "Renamed.")],
        provider="mock", model="spark-rules", shown=[
            ShownItem("prompt", "rename total_price to cart_total", "sent"),
            ShownItem("answer", "Renaming `total_price` to `cart_total`:\nthe cart\nits tests"),
            ShownItem("edit", "src/shop/cart.py: applied 1 hunk(s)", DIFF),
            ShownItem("summary", "TTFT 42 ms · 1,497 tok/s · 181 tokens · 1 applied, "
                                 "0 refused · 0.21 s"),
            ShownItem("prompt", "now add a docstring", "queued"),
            ShownItem("answer", "Added a docstring to `cart_total`."),
            ShownItem("summary", "TTFT 40 ms · 1,502 tok/s · 90 tokens · 0 applied, "
                                 "0 refused · 0.11 s")])
    saved = store.folder / "conversations" / f"{store.session_id}.json"
    saved.write_text(saved.read_text().replace('"saved_at": ', '"saved_at": 1.8e9, "_": '))
    settings = load_settings(root, {"provider": "mock", "model": "spark-rules"},
                             {"SPARK_CONFIG_DIR": str(tmp_path / "cfg")})
    app = SparkApp(TuiSetup(session=Session(None, root, settings), connect=null_connect,
                            store=store, resume=True))

    async def before(pilot: Any) -> None:
        transcript = pilot.app.query_one("#transcript")
        while "resumed the conversation" not in transcript.plain_text():
            await pilot.pause()
        pilot.app.feed.painter.clock = lambda: 1000.0
        _figures(pilot.app)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=before)
