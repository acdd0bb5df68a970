"""Esc (Painter.mute): the text that arrived since the last frame is dropped, nothing after
the key reaches the transcript, and the answer's end paints no more of it."""

from __future__ import annotations

from textual.app import App, ComposeResult

from spark_cli.session.events import ProseDelta, TurnCompleted
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


async def test_mute_drops_what_the_screen_has_not_shown():
    app = _One()
    async with app.run_test(size=(60, 10)):
        transcript = app.query_one(Transcript)
        painter = Painter(transcript, _Hud(), HudState(),  # type: ignore[arg-type]
                          TurnMarks, lambda event: None)
        painter.on_event(TurnStarted("go", "sent"))
        painter.on_event(ProseDelta("shown line\nshown tail"))
        painter.frame()
        taken = painter.stream.taken
        painter.on_event(ProseDelta(" NOT SHOWN\nnor this"))  # arrived after the last frame
        painter.mute()
        painter.on_event(ProseDelta("after the key"))
        painter.frame()
        assert painter.stream.taken == taken
        painter.on_event(TurnCompleted(status="cancelled", reason="interrupted", ttft_s=None,
                                         output_tokens=9, tokens_per_s=None, applied=0,
                                         refused=0, duration_s=0.1))
        text = transcript.plain_text()
        assert "shown line" in text and "shown tail" in text
        assert "NOT SHOWN" not in text and "nor this" not in text and "after the key" not in text
        assert painter.stream.taken == taken
