"""A one-transcript app and a painter on it: the shell of the tests that check the transcript
or the painter alone, without the session or SparkApp."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App, ComposeResult

from spark_cli.session.marks import TurnMarks
from spark_cli.tui.hud import HudState
from spark_cli.tui.transcript.painter import Painter
from spark_cli.tui.transcript.transcript import Transcript


class TranscriptApp(App[None]):
    """An app holding one Transcript (id ``t``)."""

    def compose(self) -> ComposeResult:
        yield Transcript(id="t")


class QuietHud:
    """A HUD that shows nothing."""

    def show(self, state: HudState, now: float) -> None:
        pass


def painter_on(transcript: Transcript, hud: Any = None, state: HudState | None = None,
               marks: Callable[[], TurnMarks] = TurnMarks) -> Painter:
    """A Painter on ``transcript``: a quiet HUD unless given, fresh marks per call of
    ``marks``, events about the queue ignored."""
    return Painter(transcript, hud if hud is not None else QuietHud(),
                   state if state is not None else HudState(), marks, lambda event: None)
