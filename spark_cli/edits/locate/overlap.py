"""Hunks of one section that overlap only in context lines neither of them changes.

Models (and ``diff``) give neighbouring hunks the same context lines: hunk 1
`` a / -b / +B /  c`` and hunk 2 `` c / -d / +D /  e`` both cover ``c``. That is
fine when the shared lines are unchanged in both: `trim(text, start, end,
replacement)` cuts a located span down to the lines its replacement actually
changes (its *core*), and `disjoint_cores` accepts two overlapping spans when
the shared part lies outside both cores, returning the cores to splice instead.
An insertion strictly inside the shared lines (between two of them) still
counts as an overlap: the other hunk relies on those lines being adjacent.
"""

from __future__ import annotations

Span = tuple[int, int, str]  # start, end, replacement


def _lines(text: str) -> list[str]:
    """``text`` split after each newline (the last piece may lack one)."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def trim(text: str, span: Span) -> Span:
    """``span`` without the whole lines at its start and end that its replacement keeps."""
    start, end, replacement = span
    if end < len(text) and text[end] == "\n":  # compare whole lines, newline included
        end, replacement = end + 1, replacement + "\n"
    old, new = _lines(text[start:end]), _lines(replacement)
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    cut_start = sum(map(len, old[:head]))
    cut_end = sum(map(len, old[len(old) - tail:]))
    return start + cut_start, end - cut_end, "".join(new[head:len(new) - tail])


def _touches(core: Span, lo: int, hi: int) -> bool:
    start, end, _r = core
    if start == end:
        return lo < start < hi
    return start < hi and lo < end


def disjoint_cores(text: str, first: Span, second: Span) -> tuple[Span, Span] | None:
    """The cores of two overlapping spans when they share only unchanged lines, else None."""
    lo, hi = max(first[0], second[0]), min(first[1], second[1])
    a, b = trim(text, first), trim(text, second)
    if _touches(a, lo, hi) or _touches(b, lo, hi):
        return None
    return a, b
