"""Several matches or none: what narrows a ladder step's matches (`MatchHints`), and why a
hunk could not be placed (`LocateFailed`, with messages a model can act on). Similarity
(difflib) only ever suggests lines; nothing is applied by it."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Literal

from spark_cli.edits.lang.anchors import find_anchor_ranges
from spark_cli.edits.locate.elision import is_elision

if TYPE_CHECKING:
    from spark_cli.edits.lang.anchors import Range
    from spark_cli.edits.locate.matching import LineIndex, Match

_ALIGN_PROBES = 20  # search lines used to find the best alignment
_ALIGN_SPOTS = 50  # file places tried per probe line
_ALIGN_BUDGET = 200_000  # line comparisons at most, whatever the sizes


FailReason = Literal["missing", "ambiguous", "placeholder", "elision"]


class LocateFailed(Exception):
    """The hunk could not be placed; ``message`` says why and what to send instead."""

    def __init__(self, message: str, reason: FailReason,
                 candidates: tuple[int, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason
        self.candidates = candidates  # 1-based lines of the ambiguous matches


def ambiguous(lines: tuple[int, ...], anchors: Sequence[str], anchored: bool) -> LocateFailed:
    """Refuse a search that matches ``lines`` (1-based)."""
    shown = ", ".join(str(n) for n in lines[:10]) + (", …" if len(lines) > 10 else "")
    hint = "add more unchanged lines before or after the change so it is unique" + (
        "" if anchors else " (the enclosing def/class/function line is a good one; in "
        "apply_patch, an `@@ def name` header also works)")
    where = f" inside {' / '.join(anchors)!r}" if anchored else ""
    return LocateFailed(f"the search text matches {len(lines)} places{where} "
                        f"(lines {shown}); {hint}", "ambiguous", lines)


class MatchHints:
    """What narrows several matches: ``at_eof``, the anchors, then ``search_from``."""

    def __init__(self, index: LineIndex, language: str | None, anchors: tuple[str, ...],
                 at_eof: bool, search_from: int, first_of_many: bool = False) -> None:
        self.index, self.language, self.anchors = index, language, anchors
        self.at_eof, self.search_from, self.first_of_many = at_eof, search_from, first_of_many

    @cached_property
    def ranges(self) -> list[Range]:
        return (find_anchor_ranges(self.index.text, self.language, self.anchors)
                if self.anchors else [])

    def _at_end(self, pool: list[Match]) -> list[Match]:
        last = self.index.real - 1
        while last > 0 and not self.index.lines[last].strip():
            last -= 1
        return [m for m in pool if m.last >= last]

    def _by_anchor(self, pool: list[Match]) -> list[Match]:
        """The matches inside the anchored ranges, else those after the first one."""
        inside = [m for m in pool if any(m.first <= e and s <= m.last for s, e in self.ranges)]
        if not inside:
            top = min(s for s, _ in self.ranges)
            inside = [m for m in pool if m.first >= top]
        return inside

    def fits_hints(self, matches: list[Match]) -> bool:
        """Whether some match agrees with ``*** End of File`` and the anchors."""
        if self.at_eof:
            matches = self._at_end(matches)
        if self.anchors and matches and self.ranges:
            matches = self._by_anchor(matches)
        return bool(matches)

    def choose(self, matches: list[Match]) -> tuple[Match, bool]:
        pool = matches
        if self.at_eof and len(pool) > 1:
            pool = self._at_end(pool) or pool
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


def missing(index: LineIndex, search: list[str], replace: list[str], anchors: Sequence[str],
            ranges: Sequence[tuple[int, int]]) -> LocateFailed:
    """Refuse a search found nowhere in the file ``index`` holds."""
    lines, real, table = index.lines, index.real, index.stripped  # stripped line -> rows
    note = _notes(search, replace, anchors, ranges)
    done = _already_applied(lines, real, table, search, replace)
    if done is not None:
        return LocateFailed(
            f"the search text was not found, but the replacement is already in the file at "
            f"line {done + 1}: this edit looks applied already; re-read the file before "
            f"sending more edits to it.{note}", "missing")
    aligned = _best_alignment(lines, real, table, search)
    if aligned is not None:
        first, agree, differs = aligned
        want = search[differs].strip()
        row = first + differs
        where = (f"file line {row + 1} {lines[row].strip()!r}" if 0 <= row < real
                 else "the end of the file")
        total = sum(1 for s in search if s.strip())
        message = (f"the search text was not found: {agree} of its {total} non-blank lines "
                   f"match at line {max(first, 0) + 1}, but search line {differs + 1} "
                   f"{want!r} differs from {where}. Copy the lines exactly as they are in "
                   f"the file.{note}")
        return LocateFailed(message, "missing")
    nearest = _nearest(lines, table, search)
    if nearest:
        shown = "; ".join(f"line {n}: {t.strip()!r}" for n, t in nearest)
        message = (f"the search text was not found (exact, whitespace-, indentation- and "
                   f"Unicode-insensitive matching all failed). Did you mean {shown}? Re-read "
                   f"the file and copy the lines exactly.{note}")
    else:
        message = ("the search text was not found and no line of the file resembles it; "
                   f"re-read the file before editing it.{note}")
    return LocateFailed(message, "missing")


def _notes(search: list[str], replace: list[str], anchors: Sequence[str],
           ranges: Sequence[tuple[int, int]]) -> str:
    note = ""
    elided = next((line.strip() for line in search if is_elision(line)), None)
    if elided is not None and elided in {line.strip() for line in replace}:
        note += (f" The search and the replacement both contain {elided!r}, which looks like "
                 "an elision: the lines around each placeholder are located on their own, in "
                 "order, and must be copied verbatim from the file; they were not all found.")
    elif elided is not None:
        note += (f" The search contains {elided!r}, which looks like an elision: SEARCH must "
                 "repeat the file's lines verbatim (a placeholder is only accepted when "
                 "REPLACE has the same placeholder lines).")
    if anchors and not ranges:
        note += f" The anchor {' / '.join(anchors)!r} matched no definition or line either."
    return note


def _already_applied(lines: list[str], real: int, table: dict[str, list[int]],
                     search: list[str], replace: list[str]) -> int | None:
    keys = [r.strip() for r in replace]
    if not any(keys) or keys == [s.strip() for s in search]:
        return None
    if sum(1 for k in keys if k) < 2 and len(keys[0] if keys else "") < 20:
        return None  # one short line proves nothing
    offset = next(i for i, k in enumerate(keys) if k)
    for spot in table.get(keys[offset], [])[:_ALIGN_SPOTS]:
        first = spot - offset
        if first < 0 or first + len(keys) > real:
            continue
        if all(lines[first + i].strip() == k for i, k in enumerate(keys)):
            return first
    return None


def _best_alignment(lines: list[str], real: int, table: dict[str, list[int]],
                    search: list[str]) -> tuple[int, int, int] | None:
    """(first line, agreeing lines, first differing line) where half the search agrees."""
    keys = [s.strip() for s in search]
    wanted = [i for i, k in enumerate(keys) if k]
    if not wanted:
        return None
    probes = sorted(wanted, key=lambda i: len(table.get(keys[i], ())) or 10**9)[:_ALIGN_PROBES]
    spots = max(1, min(_ALIGN_SPOTS, _ALIGN_BUDGET // (len(wanted) * len(probes))))
    best: tuple[int, int, int] | None = None
    tried: set[int] = set()
    for k in probes:
        for spot in table.get(keys[k], [])[:spots]:
            first = spot - k
            if first in tried:
                continue
            tried.add(first)
            agree, differs = 0, -1
            for i in wanted:
                row = first + i
                if 0 <= row < real and lines[row].strip() == keys[i]:
                    agree += 1
                elif differs < 0:
                    differs = i
            if differs >= 0 and (best is None or agree > best[1]):
                best = (first, agree, differs)
    if best is None or best[1] * 2 < len(wanted):
        return None
    return best


def _nearest(lines: list[str], table: dict[str, list[int]], search: list[str],
             limit: int = 3) -> tuple[tuple[int, str], ...]:
    probe = max((line.strip() for line in search), key=len, default="")
    if not probe:
        return ()
    close = difflib.get_close_matches(probe, [k for k in table if k], n=limit, cutoff=0.6)
    found = sorted((table[k][0] + 1, lines[table[k][0]]) for k in close)
    return tuple(found[:limit])
