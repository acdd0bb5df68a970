"""The approval bar, with Pilot over the bundled engine's rules brain ("run X"): the question
names the command; n runs nothing, y runs it and shows its output, Esc stops a long one;
the draft in the prompt is kept and the prompt gets the focus back."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual import events as tx
from waiting import wait_until

from spark_cli.session.events import CommandFinished, CommandStarted
from spark_cli.session.interaction import TurnEnded
from spark_cli.tui.app import SparkApp
from spark_cli.tui.commands.approval_bar import ApprovalBar
from spark_cli.tui.prompt.prompt import Prompt
from spark_cli.tui.transcript.transcript import Transcript

MakeApp = Callable[..., Awaitable[SparkApp]]


def _record(app: SparkApp) -> list[Any]:
    seen: list[Any] = []
    sink = app.interaction.sink

    def both(event: Any) -> None:
        seen.append(event)
        sink(event)

    app.interaction.sink = both
    return seen


def _send(app: SparkApp, text: str) -> None:
    app.query_one(Prompt).load_text(text)
    app.post_message(tx.Key("enter", "\r"))


async def _asked(app: SparkApp, grace_s: float = 0.0) -> ApprovalBar:
    bar = app.query_one(ApprovalBar)
    bar.grace_s = grace_s  # keys right after the question would be dropped (tested below)
    await wait_until(lambda: bar.display and bar.has_focus)
    return bar


async def test_n_runs_nothing_and_keeps_the_draft(tui_app: MakeApp, repo: Path) -> None:
    app = await tui_app(model="spark-rules", commands="ask")
    async with app.run_test(size=(100, 30)) as pilot:
        events = _record(app)
        _send(app, "run `touch made`")
        bar = await _asked(app)
        text = app.query_one(Transcript).plain_text()
        assert "$ touch made" in text and str(repo.resolve()) in text
        prompt = app.query_one(Prompt)
        prompt.load_text("my next thought")  # the user's draft while the question waits
        await pilot.press("n")
        await wait_until(lambda: any(isinstance(e, TurnEnded) for e in events))
        await pilot.pause()
        assert not (repo / "made").exists()
        assert prompt.text == "my next thought" and prompt.has_focus and not bar.display
        assert "declined: nothing ran" in app.query_one(Transcript).plain_text()
        [finished] = [e for e in events if isinstance(e, CommandFinished)]
        assert finished.ended == "declined"


async def test_y_runs_it_and_shows_its_output(tui_app: MakeApp, repo: Path) -> None:
    app = await tui_app(model="spark-rules", commands="ask")
    async with app.run_test(size=(100, 30)) as pilot:
        events = _record(app)
        _send(app, "run `echo hello-from-the-command; touch made`")
        await _asked(app)
        await pilot.press("a")  # a compound line: no "always"; the key does nothing
        await pilot.press("y")
        await wait_until(lambda: any(isinstance(e, TurnEnded) for e in events))
        await pilot.pause()
        assert (repo / "made").exists()
        text = app.query_one(Transcript).plain_text()
        assert "allowed once" in text and "hello-from-the-command" in text
        assert "→ exit 0" in text
        assert app.query_one(Prompt).has_focus


async def test_esc_stops_a_long_command_and_leaves_no_process(tui_app: MakeApp,
                                                              repo: Path) -> None:
    app = await tui_app(model="spark-rules", commands="ask")
    async with app.run_test(size=(100, 30)) as pilot:
        events = _record(app)
        marker = f"27.{os.getpid()}"  # unique: pgrep below sees every process on the machine
        _send(app, f"run `sleep {marker}`")
        await _asked(app)
        await pilot.press("y")
        await wait_until(lambda: any(isinstance(e, CommandStarted) for e in events))
        await pilot.press("escape")
        await wait_until(lambda: any(isinstance(e, TurnEnded) for e in events))
        [finished] = [e for e in events if isinstance(e, CommandFinished)]
        assert finished.ended == "stopped"
        left = subprocess.run(["pgrep", "-f", f"sleep {marker}"], capture_output=True, text=True)
        assert left.stdout == ""


async def test_keys_typed_as_the_question_shows_answer_nothing(tui_app: MakeApp,
                                                               repo: Path) -> None:
    app = await tui_app(model="spark-rules", commands="ask")
    async with app.run_test(size=(100, 30)) as pilot:
        events = _record(app)
        _send(app, "run `touch made`")
        bar = await _asked(app, grace_s=60)
        await pilot.press("a", "y", "x")  # a word being typed when the question came
        assert bar.display and not (repo / "made").exists()
        assert "answer first" in str(bar.render())
        assert app.query_one(Prompt).text == ""  # the keys went nowhere
        bar.grace_s = 0
        await pilot.press("x")  # not an answer either
        assert bar.display
        await pilot.press("n")
        await wait_until(lambda: any(isinstance(e, TurnEnded) for e in events))
        assert not (repo / "made").exists()


async def test_a_line_with_escape_sequences_is_shown_escaped_and_offers_no_always(
        tui_app: MakeApp, repo: Path) -> None:
    app = await tui_app(model="spark-rules", commands="ask", allowed_commands=["touch"],
                        allow_unsandboxed=True)  # the prefix alone would have let it run
    async with app.run_test(size=(100, 30)) as pilot:
        events = _record(app)
        _send(app, "run `touch pwned \x1b[2K\x1b[1Gpytest -q`")
        bar = await _asked(app)
        text = app.query_one(Transcript).plain_text()
        shown = text[text.index("? the model wants to run"):] + str(bar.render())
        assert "$ touch pwned \\x1b[2K\\x1b[1Gpytest -q" in shown and "\x1b" not in shown
        assert "a always" not in str(bar.render())
        await pilot.press("a")  # not offered: answers nothing
        assert bar.display
        await pilot.press("n")
        await wait_until(lambda: any(isinstance(e, TurnEnded) for e in events))
        assert not (repo / "pwned").exists()
