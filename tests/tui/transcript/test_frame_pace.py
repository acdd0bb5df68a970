"""FramePace: every tick paints until the transcript grows faster than FAST_LINES_PER_S;
then every other one (one in four past the faster pace), until it slows down again or a
turn starts. The painter hurries the
transcript (no scrollbar drawn) while the pace is fast, until the turn ends."""

from __future__ import annotations

from spark_cli.session.events import ProseDelta
from spark_cli.session.interaction import TurnEnded, TurnStarted
from spark_cli.tui.transcript.frame_pace import FAST_LINES_PER_S, PACES, WINDOW_S, FramePace
from spark_cli.tui.transcript.transcript import Transcript
from tests.tui.transcript_app import TranscriptApp, painter_on

TICK_S = 1 / 30


def _run(pace: FramePace, ticks: int, lines_per_tick: float, now: float = 0.0,
         lines: float = 0.0) -> tuple[int, float, float]:
    """``ticks`` ticks of text growing ``lines_per_tick``; (ticks painted, clock, lines)."""
    painted = 0
    for _ in range(ticks):
        now += TICK_S
        lines += lines_per_tick
        if pace.due():
            painted += 1
            pace.painted(int(lines), now)
    return painted, now, lines


def test_text_slower_than_the_limit_paints_every_tick():
    pace = FramePace()
    per_tick = FAST_LINES_PER_S * TICK_S / 2
    painted, _, _ = _run(pace, 60, per_tick)
    assert painted == 60
    assert not pace.fast


def test_text_past_the_limit_paints_every_other_tick_after_a_window():
    pace = FramePace()
    painted, now, lines = _run(pace, 30, 3.0)
    assert pace.fast
    window_ticks = int(WINDOW_S / TICK_S) + 2
    assert painted <= window_ticks + (30 - window_ticks) // 2 + 1
    painted, now, lines = _run(pace, 30, 3.0, now, lines)
    assert painted == 15  # fast throughout: every other tick
    painted, _, _ = _run(pace, 30, 0.0, now, lines)  # the text stops: every tick again
    assert not pace.fast
    assert painted >= 30 - window_ticks


def test_text_past_the_faster_pace_paints_one_tick_in_four():
    pace = FramePace()
    per_tick = PACES[1][0] * TICK_S * 2
    painted, now, lines = _run(pace, 5, per_tick)
    assert pace.every == 4 and painted == 5  # judged before a whole window
    _, now, lines = _run(pace, 25, per_tick, now, lines)
    assert pace.every == 4
    painted, now, lines = _run(pace, 40, per_tick, now, lines)
    assert painted == 10
    painted, _, _ = _run(pace, 40, 3.0, now, lines)  # slower: every other tick again
    assert pace.every == 2


def test_a_new_turn_paints_every_tick_until_measured():
    pace = FramePace()
    _run(pace, 30, 3.0)
    assert pace.fast
    pace.reset()
    assert not pace.fast
    assert pace.due() and pace.due()


async def test_the_painter_hurries_the_transcript_while_the_pace_is_fast():
    app = TranscriptApp()
    async with app.run_test(size=(60, 10)):
        transcript = app.query_one(Transcript)
        painter = painter_on(transcript)
        clock = [0.0]
        painter.clock = lambda: clock[0]
        painter.on_event(TurnStarted("go", "sent"))
        bars = []
        for _ in range(20):
            clock[0] += TICK_S
            painter.on_event(ProseDelta("a line\n" * 4))
            painter.frame()
            bars.append(transcript.styles.scrollbar_visibility)
        assert bars[0] == "visible" and bars[-1] == "hidden"
        painter.on_event(TurnEnded(interrupted=False))
        assert transcript.styles.scrollbar_visibility == "visible"
