"""Compaction in the TUI, driven by Pilot against the bundled engine: /compact, the line with
its figures, and Esc while it runs (the conversation and the draft are kept)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from textual import events as tx
from textual.keys import _character_to_key
from waiting import wait_until

from spark_cli.protocol.channel import Message
from spark_cli.session.events import CompactionFinished, CompactionStarted
from spark_cli.tui.app import SparkApp
from spark_cli.tui.prompt.prompt import Prompt
from spark_cli.tui.transcript.transcript import Transcript

MakeApp = Callable[..., Awaitable[SparkApp]]


def _record(app: SparkApp) -> list[Any]:
    seen: list[Any] = []
    sink = app.interaction.sink
    app.interaction.sink = lambda event: (seen.append(event), sink(event))  # type: ignore[assignment]
    return seen


def type_now(app: SparkApp, *keys: str) -> None:
    for key in keys:
        app.post_message(tx.Key(_character_to_key(key), key) if len(key) == 1 else
                         tx.Key(key, {"enter": "\r", "escape": "\x1b"}.get(key)))


def _history(turns: int) -> list[Message]:
    return [m for n in range(turns) for m in (
        Message("user", f"explain part {n} " + "word " * 300),
        Message("assistant", f"Part {n} does things. " + "more " * 300))]


def _of(events: list[Any], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


async def test_compact_shows_its_figures_and_esc_cancels_a_running_one(
        tui_app: MakeApp) -> None:
    app = await tui_app(tps=40, model="spark-rules", compact_model="spark-lorem",
                        context_window=8000, tools=False)
    app.session.restore(_history(11))
    before = list(app.session.history)
    async with app.run_test(size=(110, 30)):
        events = _record(app)
        type_now(app, *"/compact", "enter")
        await wait_until(lambda: _of(events, CompactionStarted))
        type_now(app, "escape")
        await wait_until(lambda: _of(events, CompactionFinished))
        assert _of(events, CompactionFinished)[0].outcome == "cancelled"
        assert app.session.history == before
        transcript = app.query_one(Transcript)
        await wait_until(lambda: "compaction cancelled" in transcript.plain_text())
        # Esc on the compaction a turn needs first: the message comes back to the prompt
        type_now(app, *"explain app.py", "enter")
        await wait_until(lambda: len(_of(events, CompactionStarted)) == 2)
        type_now(app, *"draft")
        prompt = app.query_one(Prompt)
        await wait_until(lambda: prompt.text == "draft")
        type_now(app, "escape")
        await wait_until(lambda: len(_of(events, CompactionFinished)) == 2)
        assert app.session.history == before and not app.interaction.busy
        assert prompt.text == "draft"  # what was being typed is never lost
        assert app.keeper.load().prompts[-1] == "explain app.py"  # nor the message (Up)
        prompt.clear()  # on an empty prompt, the message itself comes back
        type_now(app, *"explain app.py", "enter")
        await wait_until(lambda: len(_of(events, CompactionStarted)) == 3)
        type_now(app, "escape")
        await wait_until(lambda: prompt.text == "explain app.py")
        assert _of(events, CompactionFinished)[-1].outcome == "cancelled"
        # now with the rules brain's summary: the line with its figures, the turn answers
        app.session.configure(replace(app.session.settings, compact_model=None))
        prompt.clear()
        type_now(app, *"explain app.py", "enter")
        await wait_until(lambda: len(_of(events, CompactionFinished)) == 4, timeout=60)
        done = _of(events, CompactionFinished)[-1]
        assert done.outcome == "compacted" and done.tokens_after < done.tokens_before
        await wait_until(lambda: "outline of app.py" in transcript.plain_text(), timeout=60)
        text = transcript.plain_text()
        assert "⇣ context " in text and "% → " in text and "compacted 9 turns in" in text
