"""Transcript: one batch per frame, plain lines without a Rich render, the same text either way."""

from __future__ import annotations

from rich.text import Text

from spark_cli.tui.transcript.transcript import Transcript
from tests.tui.transcript_app import TranscriptApp


async def test_a_batch_shows_the_same_lines_as_single_writes():
    app = TranscriptApp()
    async with app.run_test(size=(40, 10)) as pilot:
        transcript = app.query_one(Transcript)
        lines = ["def f(x):", "    return x", "", "é wide: 世界", "x" * 60, "tab\there"]
        with transcript.batched():
            for line in lines:
                transcript.write_open_line(line)
            transcript.set_tail("partial")
            assert transcript.virtual_size.height == 0  # laid out once, at the end
        await pilot.pause()
        shown = transcript.plain_text().splitlines()
        assert shown[:3] == ["def f(x):", "    return x", ""]
        assert shown[3] == "é wide: 世界"
        assert "".join(shown[4:6]) == "x" * 60  # wider than the view: wrapped, not cut
        assert shown[-1] == "partial"
        assert transcript.virtual_size.height == transcript.line_count


async def test_plain_strips_only_for_short_printable_ascii():
    app = TranscriptApp()
    async with app.run_test(size=(40, 10)):
        transcript = app.query_one(Transcript)
        assert transcript._plain_strips("    x = 1") is not None
        assert transcript._plain_strips("tab\there") is None
        assert transcript._plain_strips("café") is None
        assert transcript._plain_strips("y" * 200) is None


async def test_follows_the_end_as_it_grows_past_the_view():
    app = TranscriptApp()
    async with app.run_test(size=(40, 10)) as pilot:
        transcript = app.query_one(Transcript)
        for frame in range(30):
            with transcript.batched():
                for n in range(5):
                    transcript.write_open_line(f"line {frame}.{n}")
                transcript.set_tail(f"tail {frame}")
            await pilot.pause()
            assert transcript.virtual_size.height == transcript.line_count
            assert transcript.scroll_offset.y == transcript.max_scroll_y
        assert transcript.max_scroll_y > 0
        last = transcript.render_line(transcript.size.height - 1).text.rstrip()
        assert last == "tail 29"


async def test_a_plain_tail_draws_as_its_rendered_text_draws():
    app = TranscriptApp()
    async with app.run_test(size=(40, 10)):
        transcript = app.query_one(Transcript)
        console = app.console
        for text, style in (("    x = f(1)", ""), ("plain tail", ""), ("styled", "bold")):
            transcript.set_tail(text, style)
            rendered = transcript._strips(Text(text, style=style))
            assert [s.render(console) for s in transcript._tail] == \
                [s.render(console) for s in rendered]
        rendering = transcript._strips
        renders: list[object] = []
        transcript._strips = lambda r: renders.append(r) or rendering(r)  # type: ignore[method-assign]
        transcript.set_tail("plain")
        assert transcript._tail[0].text == "plain" and renders == []  # not rendered by Rich
        transcript.set_tail("")
        assert transcript._tail == []
