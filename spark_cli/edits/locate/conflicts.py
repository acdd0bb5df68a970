"""Which lines did the user change since the model read the file?

`changed_regions(seen, current)` diffs the text the model saw against the text on
disk now and returns the current-text line ranges the user touched; a hunk that
overlaps one of them must not apply (it would overwrite the user's change).
"""

from __future__ import annotations

import difflib

from spark_cli.record import record


@record
class Region:
    """Lines ``start`` .. ``end`` (0-based, end exclusive) of the current text; a pure
    deletion by the user is an empty region at the line where text vanished."""

    start: int
    end: int

    def overlaps(self, start: int, end: int) -> bool:
        """Does a hunk covering lines [start, end) (empty = an insertion point) touch this?"""
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
    head, limit = 0, min(len(a), len(b))
    while head < limit and a[head] == b[head]:  # skip the common head and tail first:
        head += 1  # one user edit in a big file must not cost a whole-file diff
    tail = 0
    while tail < limit - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
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
