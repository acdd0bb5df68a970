"""grow_without_layout: a transcript that overflows grows without a screen layout, and its
scrollbar and scroll bounds follow as Textual's own layout would set them."""

from __future__ import annotations

from rich.text import Text
from textual.geometry import Size

from spark_cli.tui.transcript.transcript import Transcript
from spark_cli.tui.tuning.virtual_size import grow_without_layout
from tests.tui.transcript_app import TranscriptApp


async def test_an_overflowing_transcript_grows_with_its_scrollbar_and_no_layout():
    app = TranscriptApp()
    async with app.run_test(size=(40, 10)) as pilot:
        t = app.query_one(Transcript)
        for n in range(30):
            t.write(Text(f"line {n}"))
        await pilot.pause()
        before, layouts = t.virtual_size, t._layout_updates
        assert grow_without_layout(t, Size(before.width, before.height + 7))
        assert t._layout_updates == layouts  # no layout asked for
        assert t.virtual_size.height == before.height + 7
        assert t.vertical_scrollbar.window_virtual_size == before.height + 7
        assert t.max_scroll_y == before.height + 7 - t.scrollable_content_region.height
        t.virtual_size = Size(before.width, before.height + 8)  # Textual's own way: one
        assert t._layout_updates > layouts


async def test_a_new_width_or_a_short_transcript_needs_a_layout():
    app = TranscriptApp()
    async with app.run_test(size=(40, 10)) as pilot:
        t = app.query_one(Transcript)
        t.write(Text("one line"))
        await pilot.pause()
        size = t.virtual_size
        assert not grow_without_layout(t, Size(size.width, size.height + 1))  # no overflow
        for n in range(30):
            t.write(Text(f"line {n}"))
        await pilot.pause()
        size = t.virtual_size
        assert not grow_without_layout(t, Size(size.width + 1, size.height + 1))
