"""A turn's end, and every second of a long answer, move what is alive to the collector's
permanent generation (painter module doc)."""

from __future__ import annotations

import gc

from textual.app import App, ComposeResult

from spark_cli.session.interaction import TurnEnded, TurnStarted
from spark_cli.session.marks import TurnMarks
from spark_cli.tui.hud import HudState
from spark_cli.tui.painter import FREEZE_PERIOD_S, Painter
from spark_cli.tui.transcript import Transcript


class _Hud:
    def show(self, state: HudState, now: float) -> None:
        pass


class _One(App[None]):
    def compose(self) -> ComposeResult:
        yield Transcript(id="t")


async def test_turn_end_freezes_what_is_alive():
    app = _One()
    async with app.run_test(size=(40, 10)):
        painter = Painter(app.query_one(Transcript), _Hud(), HudState(),  # type: ignore[arg-type]
                          TurnMarks, lambda event: None)
        gc.unfreeze()
        kept = [object() for _ in range(10)]
        assert gc.get_freeze_count() == 0
        try:
            painter.on_event(TurnEnded(False))
            assert gc.get_freeze_count() > len(kept)
        finally:
            gc.unfreeze()


async def test_a_long_answer_freezes_every_period_while_it_streams():
    clock = [50.0]
    app = _One()
    async with app.run_test(size=(40, 10)):
        painter = Painter(app.query_one(Transcript), _Hud(), HudState(),  # type: ignore[arg-type]
                          TurnMarks, lambda event: None)
        painter.clock = lambda: clock[0]
        painter.on_event(TurnStarted("go", "sent"))
        gc.unfreeze()
        try:
            painter.frame()
            assert gc.get_freeze_count() == 0  # the turn just started
            clock[0] += FREEZE_PERIOD_S
            painter.frame()
            frozen = gc.get_freeze_count()
            assert frozen > 0
            kept = [[n] for n in range(1000)]  # what a frame leaves alive
            clock[0] += FREEZE_PERIOD_S / 2
            painter.frame()
            assert gc.get_freeze_count() == frozen  # not yet
            clock[0] += FREEZE_PERIOD_S / 2
            painter.frame()
            assert gc.get_freeze_count() >= frozen + len(kept)
        finally:
            gc.unfreeze()
