"""The answer's first text reaches the transcript when it arrives; later text waits for a frame
(every other one while it comes faster than anyone reads)."""

from __future__ import annotations

from itertools import pairwise

from spark_cli.session.events import ProseDelta
from spark_cli.session.interaction import TurnStarted
from spark_cli.tui.transcript.transcript import Transcript
from tests.tui.transcript_app import TranscriptApp, painter_on


async def test_the_first_text_is_painted_at_once_and_the_rest_per_frame():
    app = TranscriptApp()
    async with app.run_test(size=(60, 10)):
        transcript = app.query_one(Transcript)
        painter = painter_on(transcript)
        for turn in ("one", "two"):
            painter.on_event(TurnStarted(turn, "sent"))
            painter.on_event(ProseDelta(f"first of {turn}"))
            assert transcript.plain_text().splitlines()[-1] == f"first of {turn}"
            painter.on_event(ProseDelta(" and more"))
            assert transcript.plain_text().splitlines()[-1] == f"first of {turn}"
            painter.frame()
            assert transcript.plain_text().splitlines()[-1] == f"first of {turn} and more"


async def test_text_past_reading_speed_is_painted_every_other_frame():
    app = TranscriptApp()
    async with app.run_test(size=(60, 10)):
        transcript = app.query_one(Transcript)
        painter = painter_on(transcript)
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
