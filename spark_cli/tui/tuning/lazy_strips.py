"""Every Textual ``Strip`` makes its caches on first use, as the transcript's ``LeanStrip`` does.

Textual makes new strips for the rows of every frame it paints (each row
cropped, divided at the widgets' edges, styled, filtered: ~110 strips a
streaming frame), and every ``Strip`` makes seven small caches when it is
made; most of these strips are drawn once and never read a cache.
:func:`lazy_strips` gives ``Strip`` the ``__init__`` and ``__getattr__`` of
:class:`spark_cli.tui.tuning.lean_strip.LeanStrip` (process-wide, once: the
app calls it as it starts), so a cache is made when a strip first uses it.
What a strip draws and every method are Textual's own;
``tests/tui/tuning/test_lean_strip`` fails when a Textual upgrade changes how
``Strip`` makes its caches.

The TUI's CPU per 5,000 tokens streamed at 2,000 tok/s, paired (2026-12-04;
docs/benchmarks.md, ``## Stream``): 0.596 s → 0.556 s (means of eight turns each);
`spark bench stream --modes floor,tui --baseline TREE`.
"""

from __future__ import annotations

from textual.strip import Strip

from spark_cli.tui.tuning.lean_strip import LeanStrip


def lazy_strips() -> None:
    """Strips made from now on make their caches when first used (idempotent)."""
    if Strip.__init__ is LeanStrip.__init__:
        return
    Strip.__init__ = LeanStrip.__init__  # type: ignore[method-assign, assignment]
    Strip.__getattr__ = LeanStrip.__getattr__  # type: ignore[attr-defined]
