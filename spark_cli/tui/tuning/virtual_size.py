"""A scrolling widget that grows without a screen layout (setting ``virtual_size`` lays out the
whole screen each frame) when it overflows and keeps its width, via Textual's private
``Widget._scroll_update`` (``tests/tui/tuning/test_virtual_size.py``). Ledger
(docs/benchmarks.md, ``## TUI``): `spark bench tui --only typing`."""

from __future__ import annotations

from textual.geometry import Size
from textual.widget import Widget


def grow_without_layout(widget: Widget, size: Size) -> bool:
    """``size`` set without a layout (same width, overflowing); False when it needs one."""
    old, height = widget.virtual_size, widget.size.height
    if size.width != old.width or old.height <= height or size.height <= height:
        return False
    widget.set_reactive(Widget.virtual_size, size)
    widget._scroll_update(size)
    return True
