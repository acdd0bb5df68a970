"""Styled rows kept per content line: a frame that scrolls styles only the lines new on screen.

Textual styles a line-API widget's rows in ``Widget.render_lines`` and caches them by row;
a scroll moves every line and restyles every row. :class:`StyledRows` keeps the styled
strip of each visible content line, keyed by the content strip itself, while the line
stays on screen and the look is unchanged; new rows go through Textual's own pipeline, so
what is drawn is what Textual draws. It uses only the line API (``render_lines``), no
private part of Textual. Kept by the ledger (docs/benchmarks.md): `spark bench tui --only
typing` (keystrokes).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

from textual.geometry import Region
from textual.strip import Strip

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
