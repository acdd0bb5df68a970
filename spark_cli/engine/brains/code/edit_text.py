"""Turning file changes into edit text: minimal hunks (widened until each search text is
unique and not blank), rendered in either format."""

from __future__ import annotations

import bisect
import itertools
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence

from spark_cli.edits.formats.rendering import render_apply_patch, render_search_replace
from spark_cli.edits.model.blocks import FileEdit, Hunk
from spark_cli.engine.brains.base import EditFormat
from spark_cli.record import record

Lines = list[bytes]
Range = list[int]  # [i1, i2, j1, j2]: old lines i1:i2 become new lines j1:j2


@record
class Splice:
    """Replace bytes ``start:end`` of the old text (UTF-8 offsets) with ``text``."""

    start: int
    end: int
    text: bytes = b""


@record
class FileChange:
    """One file's text before and after (with its splices when made by :meth:`spliced`)."""

    path: str
    old: str
    new: str
    splices: tuple[Splice, ...] | None = None
    """What changed, when the operation said so (sorted, not overlapping)."""

    @classmethod
    def spliced(cls, path: str, old: str, splices: Iterable[Splice]) -> FileChange:
        """The change made by ``splices`` (one starting inside an earlier one is dropped)."""
        data = old.encode("utf-8")
        kept: list[Splice] = []
        parts: list[bytes] = []
        at = 0
        for splice in sorted(splices, key=lambda s: (s.start, -s.end)):
            if splice.start < at or (splice.start == splice.end and not splice.text):
                continue
            parts += (data[at:splice.start], splice.text)
            at = splice.end
            kept.append(splice)
        parts.append(data[at:])
        return cls(path, old, b"".join(parts).decode("utf-8"), tuple(kept))


def _lines(data: bytes) -> Lines:
    """Lines split at ``\\n`` only (each keeps it; the last may lack it)."""
    parts = data.split(b"\n")
    lines = [part + b"\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


class _Located:
    """Where offsets of the old text fall in its lines."""

    def __init__(self, data: bytes, lines: Lines) -> None:
        self.data = data
        self.count = len(lines)
        self.starts = [0]
        for line in lines:
            self.starts.append(self.starts[-1] + len(line))
        self.open_end = bool(data) and not data.endswith(b"\n")

    def line_of(self, offset: int) -> int:
        if offset >= len(self.data):
            return self.count - 1 if self.open_end else self.count
        return bisect.bisect_right(self.starts, offset) - 1

    def span(self, splice: Splice) -> tuple[int, int]:
        """The old lines a splice touches (an insertion at a line start touches none)."""
        first = self.line_of(splice.start)
        if splice.start == splice.end and self.starts[first] == splice.start:
            return first, first
        return first, self.line_of(max(splice.end - 1, splice.start)) + 1

    def segment(self, i1: int, i2: int, group: list[Splice]) -> bytes:
        """The new text of old lines ``i1:i2`` with ``group`` applied."""
        parts: list[bytes] = []
        at = self.starts[i1]
        for splice in group:
            parts += (self.data[at:splice.start], splice.text)
            at = splice.end
        parts.append(self.data[at:self.starts[i2]])
        return b"".join(parts)


def _closed(located: _Located, i1: int, i2: int, group: list[Splice]) -> int:
    """``i2``, grown until the group's new text ends at a line end (or the file's end)."""
    while i2 < located.count:
        segment = located.segment(i1, i2, group)
        if not segment or segment.endswith(b"\n"):
            break
        i2 += 1
    return i2


def _spliced_ranges(change: FileChange, old: Lines) -> tuple[Lines, list[Range]]:
    """The new lines and the changed ranges (splices on adjacent lines make one)."""
    located = _Located(change.old.encode("utf-8"), old)
    groups: list[tuple[int, int, list[Splice]]] = []
    for splice in change.splices or ():
        a, b = located.span(splice)
        if groups:
            i1, i2, group = groups[-1]
            if a > i2:
                i2 = _closed(located, i1, i2, group)
                groups[-1] = (i1, i2, group)
            if a <= i2:
                group.append(splice)
                groups[-1] = (i1, max(i2, b), group)
                continue
        groups.append((a, b, [splice]))
    new: Lines = []
    ranges: list[Range] = []
    at = 0
    for i1, i2, group in groups:
        i2 = _closed(located, i1, i2, group)
        new += old[at:i1]
        j1 = len(new)
        new += _lines(located.segment(i1, i2, group))
        ranges.append([i1, i2, j1, len(new)])
        at = i2
    new += old[at:]
    return new, ranges


def _trimmed_ranges(old: Lines, new: Lines) -> list[Range]:
    """One range: everything between the common first and last lines."""
    if old == new:
        return []
    limit = min(len(old), len(new))
    head = 0
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return [[head, len(old) - tail, head, len(new) - tail]]


class _Files:
    """The old and new lines with a line -> positions index of each."""

    def __init__(self, old: Lines, new: Lines) -> None:
        self.old, self.new = old, new
        self.in_old: dict[bytes, list[int]] = defaultdict(list)
        self.in_new: dict[bytes, list[int]] = defaultdict(list)
        for i, line in enumerate(old):
            self.in_old[line].append(i)
        for j, line in enumerate(new):
            self.in_new[line].append(j)

    def unique(self, i1: int, i2: int, j1: int) -> bool:
        """Whether old lines ``i1:i2`` occur once in the file as it is when this applies."""
        old, new = self.old, self.new
        needle = old[i1:i2]
        size = len(needle)
        total = j1 + len(old) - i1
        k = min(range(size), key=lambda t: len(self.in_old[needle[t]])
                + len(self.in_new.get(needle[t], ())))
        line = needle[k]
        in_new = self.in_new.get(line, [])
        in_old = self.in_old[line]
        below = bisect.bisect_left(in_new, j1)
        starts = itertools.chain((in_new[t] - k for t in range(below)),
                                 (j1 + in_old[t] - i1 - k for t in
                                  range(bisect.bisect_left(in_old, i1), len(in_old))))
        found = 0
        for start in starts:  # lazily: the second match ends the search
            if start < 0 or start + size > total:
                continue
            if all((new[p] if p < j1 else old[p - j1 + i1]) == needle[t]
                   for t, p in enumerate(range(start, start + size))):
                found += 1
                if found > 1:
                    return False
        return found == 1


def _widen(files: _Files, r: Range, floor: int) -> Range | None:
    """``r`` grown by unchanged lines, not above ``floor``, until unique and not blank."""
    old = files.old
    i1, i2, j1, j2 = r
    if i1 == i2:  # pure insertion: take the line before (or after) as context
        if i1 > floor:
            i1, j1 = i1 - 1, j1 - 1
        elif i2 < len(old):
            i2, j2 = i2 + 1, j2 + 1
    while True:
        solid = any(line.strip() for line in old[i1:i2])  # not only blank lines
        if solid and files.unique(i1, i2, j1):
            return [i1, i2, j1, j2]
        if i2 < len(old) and (i1 <= floor or (i2 - r[1]) <= (r[0] - i1)):
            i2, j2 = i2 + 1, j2 + 1
        elif i1 > floor:
            i1, j1 = i1 - 1, j1 - 1
        else:
            return [i1, i2, j1, j2] if floor == 0 and i2 == len(old) else None


def hunks_for(change: FileChange) -> list[Hunk]:
    """The minimal, unambiguous hunks that turn ``change.old`` into ``change.new``."""
    old = _lines(change.old.encode("utf-8"))
    if change.splices is not None:
        new, pending = _spliced_ranges(change, old)
    else:
        new = _lines(change.new.encode("utf-8"))
        pending = _trimmed_ranges(old, new)
    files = _Files(old, new)
    done: list[Range] = []
    index = 0
    while index < len(pending):
        r = pending[index]
        floor = done[-1][1] if done else 0
        grown = _widen(files, r, floor)
        if grown is None:  # cannot stand alone: merge with the hunk before it
            prev = done.pop()
            pending[index] = [prev[0], r[1], prev[2], r[3]]
            continue
        if index + 1 < len(pending) and grown[1] > pending[index + 1][0]:
            nxt = pending[index + 1]  # grew into the next change: one hunk for both
            pending[index + 1] = [grown[0], nxt[1], grown[2], nxt[3]]
            index += 1
            continue
        done.append(grown)
        index += 1
    return [Hunk(b"".join(old[i1:i2]).decode("utf-8"), b"".join(new[j1:j2]).decode("utf-8"),
                 at_eof=i2 == len(old))
            for i1, i2, j1, j2 in done]


def render_changes(changes: Sequence[FileChange], fmt: EditFormat) -> Iterator[str]:
    """The edit text: SEARCH/REPLACE blocks or one apply_patch envelope."""
    if fmt == "apply_patch":
        edits = [FileEdit("update", c.path, tuple(hunks_for(c)), "apply_patch")
                 for c in changes]
        yield render_apply_patch(edits)
        return
    first = True
    for change in changes:
        for hunk in hunks_for(change):
            if not first:
                yield "\n"
            first = False
            yield render_search_replace(change.path, hunk.search, hunk.replace, fence="")
