"""Esc (Painter.mute): the text that arrived since the last frame is dropped, nothing after
the key reaches the transcript, and the answer's end paints no more of it."""

from __future__ import annotations

from spark_cli.session.events import ProseDelta, TurnCompleted
from spark_cli.session.interaction import TurnStarted
from spark_cli.tui.transcript.transcript import Transcript
from tests.tui.transcript_app import TranscriptApp, painter_on


async def test_mute_drops_what_the_screen_has_not_shown():
    app = TranscriptApp()
    async with app.run_test(size=(60, 10)):
        transcript = app.query_one(Transcript)
        painter = painter_on(transcript)
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
