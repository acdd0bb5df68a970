"""How soon a change reaches the screen: spark's default for Textual's ``TEXTUAL_FPS``.

Textual paints a screen from a timer of period ``1 / TEXTUAL_FPS`` (60 by
default), paused while nothing changes and resumed when a widget asks for a
repaint. After a tick that came late — every repaint that follows a pause —
the timer skips ahead to the second period boundary after it, not the next
one (``Timer._run``: ``count = int((now - start) / interval + 1)``), so the
next repaint waits one to two periods: 17-33 ms at 60 fps. While an answer
streams, the painter's frame repaints the transcript at ~30 Hz and a key
typed just after it waited that long for the prompt to show it (the p95 of
the keystroke figure in `spark bench tui`).

At 500 fps a repaint waits 2-4 ms at most. The screen is still painted only
when something changed, so the frame count stays that of the painter plus
the keys (what streaming costs is set by the painter's own ~30 Hz clock).
A user's ``TEXTUAL_FPS`` wins.

Keystroke → screen p95 while 2,000 tok/s stream: 18 ms at 500 fps against 55 ms at
Textual's 60 (docs/benchmarks.md, Ledger): `spark bench tui --only typing`
against the same with `--fps 60`.
"""

from __future__ import annotations

import os

SPARK_FPS = "500"


def set_screen_rate() -> int:
    """Our default ``TEXTUAL_FPS`` unless the user set one, in force at once; the rate.

    Textual reads ``TEXTUAL_FPS`` when ``textual.constants`` is imported and the
    screen module turns it into its update period on import: both are set, so
    the rate holds whatever was imported first. A screen made after this call
    uses it (its update timer is made on first use).
    """
    from textual import constants, screen

    chosen = os.environ.get("TEXTUAL_FPS", SPARK_FPS)  # not written back: a /test child
    try:                                               # keeps the user's environment
        fps = max(int(chosen), 1)
    except ValueError:
        fps = 60  # what Textual does with a bad value
    constants.MAX_FPS = fps  # type: ignore[misc]
    screen.UPDATE_PERIOD = 1 / fps  # type: ignore[misc]
    return fps
