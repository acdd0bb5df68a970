"""The common start and end of two texts or lists of lines (a chunk at a time, then a
binary search, all C-speed slice compares), and text as lines that keep their newline."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T", str, bytes, Sequence[str])
_CHUNK = 4096


def common_prefix(a: T, b: T, limit: int) -> int:
    """How many leading items ``a`` and ``b`` share, at most ``limit``."""
    i = 0
    while i < limit and a[i:i + _CHUNK] == b[i:i + _CHUNK]:
        i += _CHUNK
    if i >= limit:
        return limit
    lo, hi = i, min(i + _CHUNK, limit)  # the first difference is in [lo, hi)
    while lo < hi:
        mid = (lo + hi) // 2
        if a[lo:mid + 1] == b[lo:mid + 1]:
            lo = mid + 1
        else:
            hi = mid
    return lo


def common_suffix(a: T, b: T, limit: int) -> int:
    """How many trailing items ``a`` and ``b`` share, at most ``limit``."""
    la, lb = len(a), len(b)
    n = 0
    while n < limit:
        step = min(_CHUNK, limit - n)
        if a[la - n - step:la - n] != b[lb - n - step:lb - n]:
            break
        n += step
    else:
        return limit
    lo, hi = n, n + step - 1  # the chunk differs: the answer is in [lo, hi]
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[la - mid:la - n] == b[lb - mid:lb - n]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def common_ends(a: T, b: T) -> tuple[int, int]:
    """How many items ``a`` and ``b`` share at the head, then at the tail (not overlapping)."""
    limit = min(len(a), len(b))
    head = common_prefix(a, b, limit)
    return head, common_suffix(a, b, limit - head)


def lines_of(text: str | None) -> list[str]:
    """``text`` split after each "\\n" (the last line may lack one); [] for None."""
    if not text:
        return []
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines
