"""lazy_strips: every Strip makes its caches on first use and draws as Textual's Strip does;
the pattern breaks loudly on a Textual upgrade that changes how ``Strip`` makes them."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.cache import FIFOCache
from textual.strip import Strip

from spark_cli.tui.tuning import lazy_strips as module
from spark_cli.tui.tuning.lazy_strips import CACHE_SIZES, PLAIN_SLOTS, STOCK_INIT, lazy_strips


def _made(strip: Strip) -> list[str]:
    made = []
    for name in CACHE_SIZES:
        try:
            object.__getattribute__(strip, name)
        except AttributeError:
            continue
        made.append(name)
    return made


def test_strip_init_sets_only_the_slots_lazy_strips_knows() -> None:
    strip = Strip.__new__(Strip)
    STOCK_INIT(strip, [Segment("ab")], 2)
    set_slots = {name for name in Strip.__slots__ if hasattr(strip, name)}
    assert set_slots == set(CACHE_SIZES) | set(PLAIN_SLOTS)
    assert all(isinstance(getattr(strip, name), FIFOCache) for name in CACHE_SIZES)
    assert len(CACHE_SIZES) >= 5


def test_a_strip_makes_its_caches_when_first_used_and_draws_the_same() -> None:
    segments = [Segment("hello "), Segment("world", Style(bold=True)), Segment(" !")]
    style = Style(bgcolor="red")
    ops = (lambda s: s.crop_extend(2, 20, style), lambda s: s.crop(1, 8),
           lambda s: s.apply_style(style), lambda s: s.extend_cell_length(20, style),
           lambda s: s.divide([3, 9]), lambda s: s.text, lambda s: s.cell_length)
    eager = Strip.__new__(Strip)
    STOCK_INIT(eager, segments, 13)
    expected = [op(eager) for op in ops]
    lazy_strips()
    lazy_strips()  # once is enough; again changes nothing
    strip = Strip(segments, 13)
    assert type(strip) is Strip and _made(strip) == []
    assert [op(strip) for op in ops] == expected
    assert [op(strip) for op in ops] == expected  # the second time from the caches
    assert set(_made(strip)) <= set(CACHE_SIZES) and _made(strip)
    assert Strip.__init__ is module._init
