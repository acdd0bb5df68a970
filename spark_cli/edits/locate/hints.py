"""What narrows several matches of one hunk: `*** End of File`, `@@` anchors, order.

`MatchHints.choose` picks one match of a ladder step, narrowing in order by
``at_eof`` (matches ending at the last non-blank line, if any do), the anchors
(matches overlapping the anchored ranges from `anchors.find_anchor_ranges`, else
those after the first anchored line) and ``search_from`` (the first match at or
after that offset); several left are refused as ambiguous. `fits_hints` says
whether any match agrees with ``at_eof`` and the anchors at all, so the ladder
can look further for one that does. Anchor ranges are resolved only when needed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spark_cli.edits.lang.anchors import find_anchor_ranges
from spark_cli.edits.locate.misses import ambiguous

if TYPE_CHECKING:
    from spark_cli.edits.lang.anchors import Range
    from spark_cli.edits.locate.matching import LineIndex, Match


class MatchHints:
    """What narrows several matches; anchor ranges are resolved only when needed."""

    def __init__(self, index: LineIndex, language: str | None, anchors: tuple[str, ...],
                 at_eof: bool, search_from: int, first_of_many: bool = False) -> None:
        self.index, self.language, self.anchors = index, language, anchors
        self.at_eof, self.search_from, self.first_of_many = at_eof, search_from, first_of_many
        self._ranges: list[Range] | None = None

    @property
    def ranges(self) -> list[Range]:
        if self._ranges is None:
            self._ranges = (find_anchor_ranges(self.index.text, self.language, self.anchors)
                            if self.anchors else [])
        return self._ranges

    def _last_line(self) -> int:
        last = self.index.real - 1
        while last > 0 and not self.index.lines[last].strip():
            last -= 1
        return last

    def _by_anchor(self, pool: list[Match]) -> list[Match]:
        """The matches inside the anchored ranges, else those after the first anchored
        line (codex: the context follows the anchor); empty when none is."""
        inside = [m for m in pool if any(m.first <= e and s <= m.last for s, e in self.ranges)]
        if not inside:
            top = min(s for s, _ in self.ranges)
            inside = [m for m in pool if m.first >= top]
        return inside

    def fits_hints(self, matches: list[Match]) -> bool:
        """Whether some match agrees with ``*** End of File`` and the anchors. When none
        does, the ladder goes on: a looser reading of the same search (without its blank
        edge lines, say) may match where the hints point."""
        if self.at_eof:
            last = self._last_line()
            matches = [m for m in matches if m.last >= last]
        if self.anchors and matches and self.ranges:
            matches = self._by_anchor(matches)
        return bool(matches)

    def choose(self, matches: list[Match]) -> tuple[Match, bool]:
        pool = matches
        if self.at_eof and len(pool) > 1:
            last = self._last_line()
            at_end = [m for m in pool if m.last >= last]
            pool = at_end or pool
        by_anchor = False
        if self.anchors and len(pool) > 1 and self.ranges:
            inside = self._by_anchor(pool)
            if inside and len(inside) < len(pool):
                pool, by_anchor = inside, True
        if len(pool) == 1:
            return pool[0], by_anchor
        if self.search_from > 0 or self.first_of_many:
            later = [m for m in pool if m.start >= self.search_from]
            if later:
                return later[0], by_anchor
        raise ambiguous(tuple(m.first + 1 for m in pool), self.anchors,
                        bool(self.anchors and self.ranges))
