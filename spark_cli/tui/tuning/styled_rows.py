"""Styled rows kept per content line: a frame that scrolls styles only the lines new on screen.

Textual styles a line-API widget's rows in ``Widget.render_lines`` and caches them by row;
a scroll moves every line and restyles every row. :class:`StyledRows` keeps the styled
strip of each visible content line, keyed by the content strip itself, while the line
stays on screen and the look is unchanged; new rows go through Textual's own pipeline, so
what is drawn is what Textual draws. :class:`KeptScrollBar` keeps the scrollbar's styled
rows while its segments are the same, and styles only rows unlike any of the last frame's.
Kept by the ledger (docs/benchmarks.md): `spark bench tui --only typing` (keystrokes) and
`spark bench stream --modes floor,tui --baseline TREE` (the bar's CPU).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

from rich.segment import Segment
from textual.geometry import Region
from textual.scrollbar import ScrollBar
from textual.strip import Strip

_DRAWN_ROWS = 64
"""Distinct scrollbar rows remembered (a bar draws a handful; a resize draws new ones)."""

StyleRows = Callable[[Region], list[Strip]]
"""Textual's styling of the rows of a crop (the widget's own ``render_lines``)."""


class StyledRows:
    """Styled strips of the content lines on screen (see the module doc)."""

    def __init__(self) -> None:
        self._look: Hashable = None
        self._rows: dict[int, tuple[object, Strip]] = {}  # id(source) -> (source, styled)

    def clear(self) -> None:
        """Forget every styled row (the styles changed)."""
        self._rows = {}

    def render(self, crop: Region, sources: Sequence[object], look: Hashable,
               style_rows: StyleRows) -> list[Strip]:
        """The styled rows of ``crop``; ``sources[i]`` is the content line shown on row
        ``crop.y + i`` (the same object for the same content; None for a blank row).
        ``look`` is everything else the styling depends on: a new look styles all again."""
        if look != self._look:
            self._look, self._rows = look, {}
        rows = self._rows
        kept: dict[int, tuple[object, Strip]] = {}
        out: list[Strip | None] = []
        for source in sources:
            entry = rows.get(id(source))
            if entry is not None and entry[0] is source:
                kept[id(source)] = entry
                out.append(entry[1])
            else:
                out.append(None)
        start = 0
        count = len(out)
        while start < count:
            if out[start] is not None:
                start += 1
                continue
            end = start
            while end < count and out[end] is None:
                end += 1
            styled = style_rows(Region(crop.x, crop.y + start, crop.width, end - start))
            for index, strip in enumerate(styled, start):
                out[index] = strip
                kept[id(sources[index])] = (sources[index], strip)
            start = end
        self._rows = kept  # lines that left the screen are dropped
        return [strip for strip in out if strip is not None]


class KeptScrollBar(ScrollBar):
    """A scrollbar whose styled rows are kept while it draws the same (see the module doc)."""

    def __init__(self, vertical: bool = True, name: str | None = None, *,
                 thickness: int = 1) -> None:
        super().__init__(vertical, name, thickness=thickness)
        self._kept_state: Hashable = None
        self._kept_key: Hashable = None
        self._kept: list[Strip] = []
        self._rows = StyledRows()
        self._drawn_rows: dict[tuple[Segment, ...], tuple[Segment, ...]] = {}
        """Each distinct row drawn -> the one object that stands for it (``StyledRows`` keys
        rows by identity)."""

    def render_lines(self, crop: Region) -> list[Strip]:
        state = (crop, self.size, self.window_virtual_size, self.window_size, self.position,
                 self.grabbed, self.mouse_over, self.rich_style, self.background_colors,
                 tuple(self.get_line_filters()), self.app.ansi_theme)
        if state == self._kept_state:
            return self._kept  # nothing that draws it changed
        self._kept_state = state
        width, height = self.size
        options = self.app.console.options.update_dimensions(width, height)
        drawn = tuple(self.app.console.render(self.render(), options))
        key = (state[:2], drawn, state[7:])
        if key == self._kept_key:
            return self._kept
        self._kept_key = key
        look = (crop.x, crop.width, state[1], *state[7:])
        known = self._drawn_rows
        if len(known) > _DRAWN_ROWS:
            known.clear()
        rows = list(Segment.split_lines(drawn))[crop.y:crop.y + crop.height]
        sources = [known.setdefault(row, row) for row in map(tuple, rows)]
        if len(sources) != crop.height:  # not one drawn row per row: style them all
            self._kept = super().render_lines(crop)
            return self._kept
        self._kept = self._rows.render(crop, sources, look, super().render_lines)
        return self._kept
