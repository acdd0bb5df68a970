"""LeanStrip: Textual's Strip, its caches made on first use; breaks loudly on an upgrade."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.cache import FIFOCache
from textual.strip import Strip

from spark_cli.tui.tuning.lean_strip import CACHE_SIZES, PLAIN_SLOTS, LeanStrip


def test_strip_init_sets_only_the_slots_lean_strip_knows() -> None:
    strip = Strip([Segment("ab")], 2)
    set_slots = {name for name in Strip.__slots__ if hasattr(strip, name)}
    assert set_slots == set(CACHE_SIZES) | set(PLAIN_SLOTS)
    assert all(isinstance(getattr(strip, name), FIFOCache) for name in CACHE_SIZES)
    assert len(CACHE_SIZES) >= 5


def test_a_lean_strip_makes_no_cache_until_one_is_used() -> None:
    lean = LeanStrip([Segment("hello "), Segment("world", Style(bold=True))], 11)
    for name in CACHE_SIZES:
        try:
            object.__getattribute__(lean, name)
        except AttributeError:
            continue
        raise AssertionError(f"{name} was made")


def test_a_lean_strip_renders_as_a_strip_does() -> None:
    segments = [Segment("hello "), Segment("world", Style(bold=True)), Segment(" !")]
    lean, plain = LeanStrip(segments, 13), Strip(segments, 13)
    style = Style(bgcolor="red")
    for op in (lambda s: s.crop_extend(2, 20, style), lambda s: s.crop(1, 8),
               lambda s: s.apply_style(style), lambda s: s.extend_cell_length(20, style),
               lambda s: s.divide([3, 9]), lambda s: s.text, lambda s: s.cell_length):
        assert op(lean) == op(plain)
        assert op(lean) == op(plain)  # the second time from the cache made by the first
