"""The answer's first text reaches the transcript when it arrives; later text waits for a frame
(every other one while it comes faster than anyone reads)."""

from __future__ import annotations

from itertools import pairwise

from textual.app import App, ComposeResult

from spark_cli.session.events import ProseDelta
from spark_cli.session.interaction import TurnStarted
from spark_cli.session.marks import TurnMarks
from spark_cli.tui.hud import HudState
from spark_cli.tui.painter import Painter
from spark_cli.tui.transcript import Transcript


class _Hud:
    def show(self, state: HudState, now: float) -> None:
        pass


class _One(App[None]):
    def compose(self) -> ComposeResult:
        yield Transcript(id="t")


async def test_the_first_text_is_painted_at_once_and_the_rest_per_frame():
    app = _One()
    async with app.run_test(size=(60, 10)):
        transcript = app.query_one(Transcript)
        painter = Painter(transcript, _Hud(), HudState(),  # type: ignore[arg-type]
                          TurnMarks, lambda event: None)
        for turn in ("one", "two"):
            painter.on_event(TurnStarted(turn, "sent"))
            painter.on_event(ProseDelta(f"first of {turn}"))
            assert transcript.plain_text().splitlines()[-1] == f"first of {turn}"
            painter.on_event(ProseDelta(" and more"))
            assert transcript.plain_text().splitlines()[-1] == f"first of {turn}"
            painter.frame()
            assert transcript.plain_text().splitlines()[-1] == f"first of {turn} and more"


async def test_text_past_reading_speed_is_painted_every_other_frame():
    app = _One()
    async with app.run_test(size=(60, 10)):
        transcript = app.query_one(Transcript)
        painter = Painter(transcript, _Hud(), HudState(),  # type: ignore[arg-type]
                          TurnMarks, lambda event: None)
        clock = [0.0]
        painter.clock = lambda: clock[0]
        painter.on_event(TurnStarted("fast", "sent"))
        shown = []
        for tick in range(40):
            painter.on_event(ProseDelta(f"line {tick}\nline {tick} b\n"))
            clock[0] += 1 / 30
            painter.frame()
            shown.append(transcript.plain_text().splitlines()[-1])
        late = shown[20:]
        assert painter.pace.fast
        assert sum(1 for a, b in pairwise(late) if a != b) in (9, 10)
        painter.on_event(TurnStarted("next", "sent"))  # a new turn paints every tick again
        painter.on_event(ProseDelta("first\n"))
        painter.on_event(ProseDelta("second\n"))
        clock[0] += 1 / 30
        painter.frame()
        assert transcript.plain_text().splitlines()[-1] == "second"
