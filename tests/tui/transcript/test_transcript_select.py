"""Mouse selection in the transcript: a press and a drag select its text (shown in the
selection's style); the text is what the lines say, however far the view has scrolled."""

from __future__ import annotations

from rich.text import Text

from spark_cli.tui.transcript.transcript import Transcript
from tests.tui.transcript_app import TranscriptApp


async def test_a_drag_selects_the_lines_under_it() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(60, 12)) as pilot:
        t = app.query_one(Transcript)
        for n in range(40):
            t.write(Text(f"line {n} of the answer"))
        await pilot.pause()
        top = t.scroll_offset.y  # the view shows the end: line `top` is on row 0
        await pilot.mouse_down(t, offset=(5, 1))
        await pilot.hover(t, offset=(4, 3))
        await pilot.mouse_up(t, offset=(4, 3))
        await pilot.pause()
        selected = app.screen.get_selected_text()
        assert selected is not None
        lines = selected.splitlines()
        # from the pressed cell to the released one, both included
        assert lines == [f"line {top + 1} of the answer"[5:], f"line {top + 2} of the answer",
                         f"line {top + 3} of the answer"[:5]], lines
        picked = app.screen.get_component_rich_style("screen--selection").bgcolor

        def shows_selected(y: int) -> bool:
            # in the selection's background, the text in its own colour (not the background's)
            return any(s.style is not None and s.style.bgcolor == picked and s.text.strip()
                       and s.style.color != picked for s in t.render_line(y))

        assert shows_selected(2) and not shows_selected(5)
        app.screen.clear_selection()
        await pilot.pause()
        assert t.text_selection is None
