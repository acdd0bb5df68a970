"""The painter repaints the HUD's live figures at most every HUD_PERIOD_S, state changes at once."""

from __future__ import annotations

from spark_cli.session.marks import TurnMarks
from spark_cli.tui.hud import HudState
from spark_cli.tui.transcript import painter as painter_module
from spark_cli.tui.transcript.transcript import Transcript
from tests.tui.transcript_app import TranscriptApp, painter_on


class _Hud:
    def __init__(self) -> None:
        self.shown: list[str] = []

    def show(self, state: HudState, now: float) -> None:
        self.shown.append(state.state)


async def test_live_figures_are_throttled_state_changes_are_not(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(painter_module.time, "monotonic", lambda: clock[0])
    app = TranscriptApp()
    async with app.run_test(size=(40, 10)):
        marks, hud = TurnMarks(), _Hud()
        state = HudState(state="waiting")
        painter = painter_on(app.query_one(Transcript), hud, state, lambda: marks)
        painter.frame()
        assert hud.shown == ["waiting"]
        marks.first_delta_at = marks.request_sent_at = 1.0
        painter.frame()  # waiting -> streaming: shown at once
        assert hud.shown == ["waiting", "streaming"]
        clock[0] += painter_module.HUD_PERIOD_S / 2
        painter.frame()
        assert len(hud.shown) == 2  # figures only: not yet
        clock[0] += painter_module.HUD_PERIOD_S
        painter.frame()
        assert len(hud.shown) == 3
