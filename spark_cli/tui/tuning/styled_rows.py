"""Styled rows kept per content line: a frame that scrolls styles only the lines new on screen
(Textual caches by row, and a scroll moves every row). New rows go through Textual's own
``render_lines``; no private part. Ledger (docs/benchmarks.md): `spark bench tui --only typing`."""

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
        """The styled rows of ``crop`` (``sources[i]`` on row ``crop.y + i``) for ``look``."""
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
