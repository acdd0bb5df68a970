"""How soon a change reaches the screen: spark's default for Textual's ``TEXTUAL_FPS``.

Textual paints from a timer of period ``1 / TEXTUAL_FPS``, paused while nothing changes.
After a late tick (every repaint after a pause) the timer skips to the second period
boundary, not the next (``Timer._run``), so at Textual's default a key typed while an
answer streams waits one to two periods to show. At 500 fps that wait is short; the screen
is still painted only when something changed, so streaming costs what the painter's own
clock sets. A user's ``TEXTUAL_FPS`` wins. Kept by the ledger (docs/benchmarks.md):
`spark bench tui --only typing` against the same with `--fps 60`.
"""

from __future__ import annotations

import os

from textual import constants, screen

SPARK_FPS = "500"


def set_screen_rate() -> int:
    """Our default ``TEXTUAL_FPS`` unless the user set one, in force at once; the rate.

    Textual reads ``TEXTUAL_FPS`` when ``textual.constants`` is imported and the
    screen module turns it into its update period on import: both are set, so
    the rate holds whatever was imported first. A screen made after this call
    uses it (its update timer is made on first use).
    """
    chosen = os.environ.get("TEXTUAL_FPS", SPARK_FPS)  # not written back: a /test child
    try:                                               # keeps the user's environment
        fps = max(int(chosen), 1)
    except ValueError:
        fps = 60  # what Textual does with a bad value
    constants.MAX_FPS = fps  # type: ignore[misc]
    screen.UPDATE_PERIOD = 1 / fps  # type: ignore[misc]
    return fps
