"""StyledRows: a scrolled line's styled row is kept while it stays on screen, and the
transcript draws exactly what Textual's own styling draws (an upgrade that changes it fails)."""

from __future__ import annotations

from rich.text import Text
from textual.geometry import Region
from textual.scroll_view import ScrollView
from textual.strip import Strip

from spark_cli.tui.transcript.transcript import Transcript
from spark_cli.tui.tuning.styled_rows import StyledRows
from tests.tui.transcript_app import TranscriptApp


def _styler(log: list[Region]):
    def style_rows(crop: Region) -> list[Strip]:
        log.append(crop)
        return [Strip.blank(crop.width) for _ in range(crop.height)]
    return style_rows


def test_only_rows_new_on_screen_are_styled_in_runs():
    rows, asked = StyledRows(), []
    lines = [object() for _ in range(8)]
    first = rows.render(Region(0, 0, 10, 4), lines[0:4], "look", _styler(asked))
    assert asked == [Region(0, 0, 10, 4)]
    asked.clear()
    second = rows.render(Region(0, 0, 10, 4), lines[2:6], "look", _styler(asked))  # scrolled 2
    assert asked == [Region(0, 2, 10, 2)]  # the two new lines, one call
    assert second[:2] == first[2:] and second[0] is first[2]  # the same strips, not restyled
    asked.clear()
    rows.render(Region(0, 0, 10, 4), [lines[2], lines[7], lines[4], None], "look", _styler(asked))
    assert asked == [Region(0, 1, 10, 1), Region(0, 3, 10, 1)]


def test_a_new_look_or_clear_styles_everything_again():
    rows, asked = StyledRows(), []
    lines = [object() for _ in range(3)]
    rows.render(Region(0, 0, 10, 3), lines, "dark", _styler(asked))
    rows.render(Region(0, 0, 10, 3), lines, "light", _styler(asked))
    rows.clear()
    rows.render(Region(0, 0, 10, 3), lines, "light", _styler(asked))
    assert asked == [Region(0, 0, 10, 3)] * 3


def test_lines_that_left_the_screen_are_not_kept():
    rows, asked = StyledRows(), []
    lines = [object() for _ in range(6)]
    rows.render(Region(0, 0, 10, 3), lines[:3], "look", _styler(asked))
    rows.render(Region(0, 0, 10, 3), lines[3:], "look", _styler(asked))
    asked.clear()
    rows.render(Region(0, 0, 10, 3), lines[:3], "look", _styler(asked))
    assert asked == [Region(0, 0, 10, 3)]


class _One(TranscriptApp):
    CSS = "Transcript { padding: 0 1; background: $panel; }"


def _textual_rows(transcript: Transcript, crop: Region) -> list[Strip]:
    """Textual's own styling of painted rows, nothing kept (painted rows carry no selection
    offsets: only the compositor's hit test asks for those)."""
    transcript._styles_cache.clear()
    transcript._painting = True
    try:
        return ScrollView.render_lines(transcript, crop)
    finally:
        transcript._painting = False


async def test_the_transcript_draws_what_textual_draws_while_it_scrolls():
    app = _One()
    async with app.run_test(size=(40, 10)) as pilot:
        transcript = app.query_one(Transcript)
        for frame in range(12):
            with transcript.batched():
                for n in range(3):
                    transcript.write_open_line(f"line {frame}.{n} " + "é" * (n + frame % 3))
                transcript.set_tail(f"tail {frame}")
            transcript.write(Text(f"block {frame}", style="bold magenta"))
            await pilot.pause()
            crop = Region(0, 0, *transcript.size)
            assert transcript.render_lines(crop) == _textual_rows(transcript, crop)
        transcript.scroll_to(y=4, animate=False)
        await pilot.pause()
        crop = Region(0, 0, *transcript.size)
        assert transcript.render_lines(crop) == _textual_rows(transcript, crop)
        fifth = transcript.plain_text().splitlines()[4]
        assert transcript.render_lines(crop)[0].text.strip() == fifth.strip()
