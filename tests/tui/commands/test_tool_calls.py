"""Tool calls in the TUI, with Pilot: a call line appears (Ctrl+O expands it), Esc mid-loop,
Enter between calls. A scripted channel (one script per request) and a stand-in for
``spark_cli.tools.run.run_tool`` that can hold a call until it is cancelled."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual import events as tx
from waiting import wait_until

from spark_cli.protocol.channel import (
    Capabilities,
    RequestSent,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
    ToolCallOpened,
    ToolOutput,
    TurnFinished,
    TurnRequest,
)
from spark_cli.session.config.settings import load_settings
from spark_cli.session.conversation import Session
from spark_cli.session.events import ToolCallFinished, TurnCompleted
from spark_cli.session.interaction import Redirected, TurnEnded
from spark_cli.session.workspace.store import SessionStore
from spark_cli.tui.app import SparkApp, TuiSetup
from spark_cli.tui.prompt.prompt import Prompt
from spark_cli.tui.transcript.transcript import Transcript


@dataclass(frozen=True, slots=True)
class Result:
    ok: bool
    output: str
    summary: str


class Tools:
    def __init__(self, *, block: str | None = None) -> None:
        self.block = block
        self.running = threading.Event()
        self.cancelled = threading.Event()
        self.names: list[str] = []

    def __call__(self, root: Path, name: str, arguments: str, *, readable: Any = (),
                 cancel: threading.Event | None = None) -> Result:
        self.names.append(name)
        if name == self.block and cancel is not None:
            self.running.set()
            cancel.wait(10)
            self.cancelled.set()
            return Result(False, "cancelled", "cancelled")
        return Result(True, "app.py:1:TAX_RATE = 0.2\napp.py:3:    return TAX_RATE", "2 hits")


def _call(call_id: str, name: str, **args: Any) -> list[Any]:
    return [ToolCallOpened(call_id, name),
            ToolCallCompleted(ToolCall(call_id, name, json.dumps(args)))]


class Channel:
    def __init__(self, scripts: list[list[Any]], *, steer: bool = True) -> None:
        self.scripts = scripts
        self.requests: list[TurnRequest] = []
        self.stopped = asyncio.Event()
        self._caps = Capabilities(steer=steer)

    @property
    def capabilities(self) -> Capabilities:
        return self._caps

    async def stream(self, request: TurnRequest) -> AsyncIterator[Any]:
        script = self.scripts[min(len(self.requests), len(self.scripts) - 1)]
        self.requests.append(request)
        self.stopped.clear()
        yield RequestSent(time.perf_counter())
        for event in script:
            await asyncio.sleep(0.001)  # a stream paced like a model's
            if self.stopped.is_set():
                yield TurnFinished("cancelled")
                return
            yield TextDelta(event) if isinstance(event, str) else event
        yield TurnFinished("completed")

    async def steer(self, text: str) -> None: ...

    async def stop(self) -> None:
        self.stopped.set()

    async def warm(self, request: TurnRequest | None = None) -> None: ...
    async def aclose(self) -> None: ...


def _app(repo: Path, tmp_path: Path, channel: Channel, tools: Tools, *,
         resume: bool = False) -> SparkApp:
    @contextlib.asynccontextmanager
    async def connect(settings: Any) -> AsyncIterator[Channel]:
        yield channel

    settings = load_settings(repo, {"provider": "mock"},
                             {"SPARK_CONFIG_DIR": str(tmp_path / "cfg")})
    session = Session(None, repo, settings, run_tool=tools)
    return SparkApp(TuiSetup(session=session, connect=connect, store=SessionStore(repo),
                             resume=resume))


def _record(app: SparkApp) -> list[Any]:
    seen: list[Any] = []
    sink = app.interaction.sink

    def both(event: Any) -> None:
        seen.append(event)
        sink(event)

    app.interaction.sink = both
    return seen


def _type(app: SparkApp, *keys: str) -> None:
    from textual.keys import _character_to_key

    for key in keys:
        if len(key) == 1:
            app.post_message(tx.Key(_character_to_key(key), key))
        else:
            app.post_message(tx.Key(key, {"enter": "\r", "escape": "\x1b"}.get(key)))


def _count(events: list[Any], kind: type) -> int:
    return sum(isinstance(e, kind) for e in events)


async def test_a_call_line_appears_and_ctrl_o_shows_its_result(repo: Path, tmp_path: Path,
                                                                monkeypatch: Any) -> None:
    monkeypatch.setenv("SPARK_STATE_DIR", str(tmp_path / "state"))
    channel = Channel([["Looking.\n", *_call("c1", "search", pattern="TAX_RATE")],
                       ["Found it in app.py.\n"]])
    app = _app(repo, tmp_path, channel, Tools())
    async with app.run_test(size=(100, 30)) as pilot:
        events = _record(app)
        _type(app, *"where is the rate", "enter")
        await wait_until(lambda: _count(events, TurnEnded) == 1)
        await pilot.pause()
        text = app.query_one(Transcript).plain_text()
        assert "⚙ search TAX_RATE → 2 hits  #1" in text
        assert text.index("Looking.") < text.index("⚙ search") < text.index("Found it")
        assert "1 tool call" in text  # the turn's summary counts it
        assert "app.py:3:    return TAX_RATE" not in text
        await pilot.press("ctrl+o")
        await pilot.pause()
        text = app.query_one(Transcript).plain_text()
        assert "⚙ #1 search TAX_RATE" in text and "app.py:3:    return TAX_RATE" in text
        assert app.query_one(Prompt).has_focus


async def test_esc_mid_loop_stops_the_running_call_at_once(repo: Path, tmp_path: Path,
                                                           monkeypatch: Any) -> None:
    monkeypatch.setenv("SPARK_STATE_DIR", str(tmp_path / "state"))
    channel = Channel([["Reading.\n", *_call("c1", "search", pattern="x"),
                        *_call("c2", "list_files")], ["never\n"]])
    tools = Tools(block="list_files")
    app = _app(repo, tmp_path, channel, tools)
    async with app.run_test(size=(100, 30)) as pilot:
        events = _record(app)
        _type(app, *"look", "enter")
        await asyncio.to_thread(tools.running.wait, 10)
        assert "⚙ list" in app.feed.state.state  # the HUD names the running call
        _type(app, "escape")
        await wait_until(lambda: _count(events, TurnEnded) == 1)
        await pilot.pause()
        assert tools.cancelled.wait(5)
        done = next(e for e in events if isinstance(e, TurnCompleted))
        assert (done.status, done.reason, done.tool_calls) == ("cancelled", "interrupted", 2)
        assert len(channel.requests) == 1  # nothing was sent after Esc
        text = app.query_one(Transcript).plain_text()
        assert "⚙ search x → 2 hits  #1" in text and "⚙ list . → cancelled  #2" in text
        outputs = [i for i in app.session.history if isinstance(i, ToolOutput)]
        assert [o.call_id for o in outputs] == ["c1", "c2"]


async def test_enter_between_calls_resends_keeping_what_was_read(repo: Path, tmp_path: Path,
                                                                monkeypatch: Any) -> None:
    monkeypatch.setenv("SPARK_STATE_DIR", str(tmp_path / "state"))
    channel = Channel([["Reading.\n", *_call("c1", "search", pattern="x"),
                        *_call("c2", "list_files")], ["Looking in web/ then.\n"]])
    tools = Tools(block="list_files")
    app = _app(repo, tmp_path, channel, tools)
    async with app.run_test(size=(100, 30)) as pilot:
        events = _record(app)
        _type(app, *"look", "enter")
        await asyncio.to_thread(tools.running.wait, 10)
        _type(app, *"try web", "enter")
        await wait_until(lambda: _count(events, TurnEnded) == 2)
        await pilot.pause()
        assert [e.how for e in events if isinstance(e, Redirected)] == ["resend"]
        text = app.query_one(Transcript).plain_text()
        assert "↪ try web  (stopping and resending)" in text and "› (redirect) try web" in text
        resent = channel.requests[-1].messages
        outputs = {i.call_id: i.output for i in resent if isinstance(i, ToolOutput)}
        assert "TAX_RATE" in outputs["c1"]  # what was read travels with the redirect
        assert sum(isinstance(e, ToolCallFinished) for e in events) == 2


async def test_resume_keeps_the_calls(repo: Path, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("SPARK_STATE_DIR", str(tmp_path / "state"))
    channel = Channel([[*_call("c1", "search", pattern="TAX_RATE")], ["Found it.\n"]])
    app = _app(repo, tmp_path, channel, Tools())
    async with app.run_test(size=(100, 30)):
        events = _record(app)
        _type(app, *"where is the rate", "enter")
        await wait_until(lambda: _count(events, TurnEnded) == 1)
    again = _app(repo, tmp_path, Channel([["ok\n"]]), Tools(), resume=True)
    async with again.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert "⚙ search TAX_RATE" in again.query_one(Transcript).plain_text()
        calls = [i for i in again.session.history if isinstance(i, ToolCall)]
        outputs = [i for i in again.session.history if isinstance(i, ToolOutput)]
        assert [c.call_id for c in calls] == [o.call_id for o in outputs] == ["c1"]
