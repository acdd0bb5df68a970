"""A scrolling widget that grows without a screen layout, when only its length changed.

Setting Textual's ``virtual_size`` lays out the whole screen, every streaming frame. A
transcript that already overflows and keeps its width changes only its scroll state, which
Textual's private ``Widget._scroll_update`` brings up to date (scrollbars, scroll bounds).
Kept by the ledger (docs/benchmarks.md, ``## TUI``: no screen layout per frame): `spark
bench tui --only typing`. ``tests/tui/tuning/test_virtual_size.py`` fails when an upgrade
moves it.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.widget import Widget


def grow_without_layout(widget: Widget, size: Size) -> bool:
    """Give ``widget`` the virtual ``size`` without a layout when its width is unchanged and
    it overflows before and after; False when it needs one (set ``virtual_size`` then)."""
    old, height = widget.virtual_size, widget.size.height
    if size.width != old.width or old.height <= height or size.height <= height:
        return False
    widget.set_reactive(Widget.virtual_size, size)
    widget._scroll_update(size)
    return True
