"""Every Textual ``Strip`` makes its seven caches on first use, not when it is made.

Textual makes new strips for the rows of every frame it paints (each row
cropped, divided at the widgets' edges, styled, filtered: ~110 strips a
streaming frame), and every ``Strip`` makes seven small caches (crops, styles,
filters, line lengths, offsets) when it is made; most of these strips are drawn
once and never read a cache. :func:`lazy_strips` (process-wide, once: the app
calls it as it starts) gives ``Strip`` an ``__init__`` that sets only its plain
slots and a ``__getattr__`` that makes a cache when a strip first reads it
(an unset slot reads through ``__getattr__``). What a strip draws and every
method are Textual's own. The caches' names and sizes are read from ``Strip``
itself at import (a strip made once); ``tests/tui/tuning/test_lazy_strips``
fails when a Textual upgrade breaks the pattern (a cache made otherwise, or
another slot set in ``Strip.__init__``).

The TUI's CPU per 5,000 tokens streamed at 2,000 tok/s, paired (docs/benchmarks.md,
``## Stream``): 0.596 s → 0.556 s (means of eight turns each);
`spark bench stream --modes floor,tui --baseline TREE`.
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
STOCK_INIT = Strip.__init__
"""Textual's own ``Strip.__init__`` (kept for the upgrade check)."""
PLAIN_SLOTS = {"_segments": None, "_cell_length": None, "_render_cache": None,
               "_link_ids": None, "_cell_count": None}
"""The slots ``Strip.__init__`` sets that are not caches (the first two from its
arguments, the rest to None)."""


def _init(self: Strip, segments: Iterable[Segment], cell_length: int | None = None) -> None:
    self._segments = list(segments)
    self._cell_length = cell_length
    self._render_cache = None
    self._link_ids = None
    self._cell_count = None


def _getattr(self: Strip, name: str) -> FIFOCache[object, object]:
    size = CACHE_SIZES.get(name)
    if size is None:
        raise AttributeError(name)
    cache: FIFOCache[object, object] = FIFOCache(size)
    setattr(self, name, cache)
    return cache


def lazy_strips() -> None:
    """Strips made from now on make their caches when first used (idempotent)."""
    Strip.__init__ = _init  # type: ignore[method-assign]
    Strip.__getattr__ = _getattr  # type: ignore[attr-defined]
