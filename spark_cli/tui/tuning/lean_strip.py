"""Textual's ``Strip`` without its seven caches until one is used: the transcript's lines.

Every ``Strip`` makes seven small caches when it is made (crops, styles, filters,
line lengths, offsets: ~1 KB with their dicts), for the strips a widget draws
again and again. The transcript keeps every line of a session and draws only the
few on screen, so its lines are :class:`LeanStrip`: the same strip, whose caches
are made on first use (an unset slot reads through ``__getattr__``). Every
method is ``Strip``'s own, and what they return are plain strips.

`spark bench soak` (500 turns, 2026-12-04): RSS turn 50 → 500 +27.5 MB with lean lines
against +32.7 MB without. The caches'
names and sizes are read from ``Strip`` itself at import (a strip made once), so
a Textual that changes them changes these too; ``tests/tui/tuning/test_lean_strip``
fails when a Textual upgrade breaks the pattern (a cache made otherwise, or
another slot set in ``Strip.__init__``).
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.segment import Segment
from textual.cache import FIFOCache
from textual.strip import Strip


def _cache_sizes() -> dict[str, int]:
    """Each of ``Strip``'s cache slots and its size, as ``Strip.__init__`` makes them."""
    probe = Strip([])
    return {name: getattr(probe, name)._maxsize for name in Strip.__slots__
            if isinstance(getattr(probe, name, None), FIFOCache)}


CACHE_SIZES = _cache_sizes()
PLAIN_SLOTS = {"_segments": None, "_cell_length": None, "_render_cache": None,
               "_link_ids": None, "_cell_count": None}
"""The slots ``Strip.__init__`` sets that are not caches (the first two from its
arguments, the rest to None)."""


class LeanStrip(Strip):
    """A ``Strip`` whose caches are made when first read."""

    __slots__ = ()

    def __init__(self, segments: Iterable[Segment], cell_length: int | None = None) -> None:
        self._segments = list(segments)
        self._cell_length = cell_length
        self._render_cache = None
        self._link_ids = None
        self._cell_count = None

    def __getattr__(self, name: str) -> FIFOCache[object, object]:
        size = CACHE_SIZES.get(name)
        if size is None:
            raise AttributeError(name)
        cache: FIFOCache[object, object] = FIFOCache(size)
        setattr(self, name, cache)
        return cache
