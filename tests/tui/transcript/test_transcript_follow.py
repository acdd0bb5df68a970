"""The transcript keeps its end in view as lines arrive, also when it gets shorter (the queue
appears), and stops following while the user has scrolled up."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import Static

from spark_cli.tui.transcript.transcript import Transcript


class _Shell(App[None]):
    CSS = "#extra { display: none; height: 5; }"

    def compose(self) -> ComposeResult:
        yield Transcript(id="t")
        yield Static("queue", id="extra")


def _at_end(t: Transcript) -> bool:
    return t.scroll_offset.y >= t.max_scroll_y - 1


async def test_the_end_stays_in_view_when_the_transcript_shrinks() -> None:
    app = _Shell()
    async with app.run_test(size=(60, 20)) as pilot:
        t = app.query_one(Transcript)
        for n in range(60):
            t.write(Text(f"line {n}"))
        await pilot.pause()
        assert _at_end(t)
        app.query_one("#extra").display = True  # the queue shows: 5 rows fewer
        await pilot.pause()
        t.write(Text("after the queue appeared"))
        await pilot.pause()
        assert _at_end(t) and t.following


async def test_scrolling_up_stops_following_and_the_end_resumes_it() -> None:
    app = _Shell()
    async with app.run_test(size=(60, 20)) as pilot:
        t = app.query_one(Transcript)
        for n in range(60):
            t.write(Text(f"line {n}"))
        await pilot.pause()
        t.scroll_to(y=5, animate=False)
        await pilot.pause()
        assert not t.following
        t.write(Text("more"))
        await pilot.pause()
        assert t.scroll_offset.y == 5  # reading stays put
        t.scroll_end(animate=False)
        await pilot.pause()
        assert t.following


async def test_lines_wrap_beside_the_scrollbar_not_under_it() -> None:
    app = _Shell()
    async with app.run_test(size=(60, 20)) as pilot:
        t = app.query_one(Transcript)
        t.write(Text("before the scrollbar " * 6))
        for n in range(40):  # now it overflows: the scrollbar shows
            t.write(Text(f"line {n}"))
        t.write(Text("after the scrollbar " * 6))
        await pilot.pause()
        width = t.scrollable_content_region.width
        lines = t.plain_text().splitlines()
        assert max(len(line) for line in lines) <= width
        assert " ".join(lines).count("scrollbar") == 12  # nothing cut off


async def test_a_hurried_transcript_drops_its_scrollbar_while_it_follows() -> None:
    app = _Shell()
    async with app.run_test(size=(60, 20)) as pilot:
        t = app.query_one(Transcript)
        for n in range(60):
            t.write(Text(f"line {n}"))
        await pilot.pause()
        gutter = (t.region.right - 1, t.region.y + 3)
        width = t.scrollable_content_region.width
        assert app.screen.get_widget_at(*gutter)[0] is t.vertical_scrollbar
        t.hurry(True)
        await pilot.pause()
        assert app.screen.get_widget_at(*gutter)[0] is t  # the bar is not drawn
        assert t.scrollable_content_region.width == width  # its gutter stays: no re-wrap
        t.scroll_to(y=5, animate=False)  # the user scrolls up: the bar is back
        await pilot.pause()
        assert app.screen.get_widget_at(*gutter)[0] is t.vertical_scrollbar
        t.scroll_end(animate=False)
        await pilot.pause()
        assert app.screen.get_widget_at(*gutter)[0] is t
        t.hurry(False)
        await pilot.pause()
        assert app.screen.get_widget_at(*gutter)[0] is t.vertical_scrollbar
