"""Placing every hunk of one file section in the file's text, in order (`locate_all`),
refusing those that touch lines the user changed since the model read it."""

from __future__ import annotations

import difflib
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from spark_cli.edits.lang.ends import common_ends, lines_of
from spark_cli.edits.locate.ladder import locate
from spark_cli.edits.locate.misses import LocateFailed
from spark_cli.edits.model.outcome import HunkRefused
from spark_cli.record import record

if TYPE_CHECKING:
    from spark_cli.edits.model.blocks import FileEdit, Hunk

_NEWLINES = re.compile(r"\r\n|\r")


@record
class Span:
    """Where one hunk landed: its character range, its replacement, the step that found it."""

    index: int  # 1-based hunk index
    start: int
    end: int
    replacement: str
    step: str


@record
class Region:
    """Current-text lines [start, end); a user's pure deletion is an empty region."""

    start: int
    end: int

    def overlaps(self, start: int, end: int) -> bool:
        """Does a hunk covering lines [start, end) (empty: an insertion) touch this?"""
        if start == end:  # an insertion: touched if it lands inside or at the edge
            return self.start <= start <= self.end
        if self.start == self.end:  # the user deleted lines here: touched if strictly inside
            return start < self.start < end
        return start < self.end and self.start < end

    def describe(self) -> str:
        if self.start == self.end:
            return f"around line {self.start + 1}"
        if self.end - self.start == 1:
            return f"line {self.start + 1}"
        return f"lines {self.start + 1}-{self.end}"


def changed_regions(seen: str, current: str) -> list[Region]:
    """Current-text line ranges that differ from ``seen``."""
    a = seen.split("\n")
    b = current.split("\n")
    head, tail = common_ends(a, b)  # one user edit in a big file: no whole-file diff
    matcher = difflib.SequenceMatcher(None, a[head : len(a) - tail], b[head : len(b) - tail],
                                      autojunk=False)
    return [Region(j1 + head, j2 + head)
            for tag, _i1, _i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def line_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The 0-based line range [first, last+1) that the character range [start, end) covers."""
    first = text.count("\n", 0, start)
    if end <= start:
        return first, first
    last = text.count("\n", 0, max(start, end - 1))
    return first, last + 1


def is_append(hunk: Hunk) -> bool:
    """An empty SEARCH without anchors: create the file, or append to it."""
    return not hunk.search and not hunk.anchors


def lf(text: str) -> str:
    """Edit text that came with CRLF: the file's own endings are restored on encode."""
    return _NEWLINES.sub("\n", text) if "\r" in text else text


def _find(work: str, hunk: Hunk, language: str | None, position: int,
          in_order: bool = False) -> tuple[int, int, str, str]:
    if is_append(hunk):
        body = lf(hunk.replace)
        if work.strip() and body.startswith(work):  # the model re-sent the whole file
            return len(work), len(work), body[len(work):], "append"
        return len(work), len(work), body, "append"
    if "\r" in hunk.search or "\r" in hunk.replace:
        hunk = replace(hunk, search=lf(hunk.search), replace=lf(hunk.replace))
    try:
        found = locate(work, hunk, language=language, search_from=position,
                       first_of_many=in_order)
    except LocateFailed:
        if not position:
            raise
        found = locate(work, hunk, language=language, search_from=0)  # hunks out of order
    return found.start, found.end, found.replacement, found.step


def _key(hunk: Hunk) -> tuple[str, str, tuple[str, ...], bool]:
    return hunk.search, hunk.replace, hunk.anchors, hunk.at_eof


def _seen_conflict(seen: str, hunk: Hunk, language: str | None, index: int) -> str | None:
    """The conflict message when the hunk locates in the text the model saw, else None."""
    try:
        start, end, _r, _s = _find(seen, hunk, language, 0)
    except LocateFailed:
        return None
    first, last = line_span(seen, start, end)
    where = f"line {first + 1}" if last - first <= 1 else f"lines {first + 1}-{last}"
    return (f"the file changed on disk since the model read it; hunk {index} matches {where} "
            "of the file as the model read it, which the user has since changed: re-read the "
            "file and redo this hunk")


def locate_all(work: str, edit: FileEdit, regions: list[Region] | None,
                language: str | None, seen: str | None = None,
                in_order: bool = False) -> tuple[list[Span], list[HunkRefused]]:
    """Locate each hunk after the previous one; (spans, refused hunks): conflicts with the
    user's changes and overlaps with earlier hunks are refused."""
    spans: list[Span] = []
    refused: list[HunkRefused] = []
    position = 0
    for index, hunk in enumerate(edit.hunks, 1):
        line = hunk.line or edit.line
        where = f"hunk {index} (edit line {line})"
        try:
            try:
                start, end, replacement, step = _find(work, hunk, language, position, in_order)
            except LocateFailed as exc:
                group = sum(1 for h in edit.hunks if _key(h) == _key(hunk))
                if exc.reason != "ambiguous" or group < 2 or group != len(exc.candidates):
                    raise
                start, end, replacement, step = _find(work, hunk, language, position, True)
        except LocateFailed as exc:
            conflict = _seen_conflict(seen, hunk, language, index) if regions and seen else None
            if conflict is not None:
                refused.append(HunkRefused(index, line, "conflict", conflict))
            else:
                refused.append(HunkRefused(index, line, exc.reason, f"{where}: {exc.message}",
                                           exc.candidates))
            continue
        if regions:
            first_line, last_line = line_span(work, start, end)
            touched = next((r for r in regions if r.overlaps(first_line, last_line)), None)
            if touched is not None:
                refused.append(HunkRefused(
                    index, line, "conflict",
                    f"the file changed on disk since the model read it; hunk {index} touches "
                    f"{touched.describe()}, which the user edited: re-read the file and redo "
                    "this hunk"))
                continue
        placed = Span(index, start, end, replacement, step)
        if not _fit(work, spans, placed):
            refused.append(HunkRefused(index, line, "overlap", f"{where} overlaps an earlier "
                                       "hunk of the same file and changes lines they share; "
                                       "merge them into one hunk"))
            continue
        position = end
    return spans, refused


def _fit(work: str, spans: list[Span], new: Span) -> bool:
    """Add ``new`` unless it changes lines an earlier span changes (shared context is trimmed)."""
    cores: dict[int, Span] = {}
    mine = new
    for k, other in enumerate(spans):
        if not (mine.start < other.end and other.start < mine.end):
            continue
        pair = disjoint_cores(work, (other.start, other.end, other.replacement),
                              (mine.start, mine.end, mine.replacement))
        if pair is None:
            return False
        (s1, e1, r1), (s2, e2, r2) = pair
        cores[k] = replace(other, start=s1, end=e1, replacement=r1)
        mine = replace(mine, start=s2, end=e2, replacement=r2)
    for k, core in cores.items():
        spans[k] = core
    spans.append(mine)
    return True


Cut = tuple[int, int, str]  # a span to splice: start, end, replacement


def trim(text: str, span: Cut) -> Cut:
    """``span`` without the whole lines at its start and end that its replacement keeps."""
    start, end, replacement = span
    if end < len(text) and text[end] == "\n":  # compare whole lines, newline included
        end, replacement = end + 1, replacement + "\n"
    old, new = lines_of(text[start:end]), lines_of(replacement)
    head, tail = common_ends(old, new)
    cut_start = sum(map(len, old[:head]))
    cut_end = sum(map(len, old[len(old) - tail:]))
    return start + cut_start, end - cut_end, "".join(new[head:len(new) - tail])


def _touches(core: Cut, lo: int, hi: int) -> bool:
    start, end, _r = core
    if start == end:
        return lo < start < hi
    return start < hi and lo < end


def disjoint_cores(text: str, first: Cut, second: Cut) -> tuple[Cut, Cut] | None:
    """The cores (`trim`) of two overlapping spans that share only unchanged lines, else None
    (an insertion between shared lines overlaps: the other hunk needs them adjacent)."""
    lo, hi = max(first[0], second[0]), min(first[1], second[1])
    a, b = trim(text, first), trim(text, second)
    if _touches(a, lo, hi) or _touches(b, lo, hi):
        return None
    return a, b
