"""spark's default ``TEXTUAL_FPS`` (500): after a pause Textual's paint timer skips to the
second period boundary, so at its default a key waits one to two periods to show; painting
still happens only on change. A user's value wins. Ledger (docs/benchmarks.md): `spark bench
tui --only typing` against the same with `--fps 60`."""

from __future__ import annotations

import os

from textual import constants, screen

SPARK_FPS = "500"


def set_screen_rate() -> int:
    """Our default ``TEXTUAL_FPS`` unless the user set one, in Textual's constants too."""

    chosen = os.environ.get("TEXTUAL_FPS", SPARK_FPS)  # not written back: a /test child
    try:                                               # keeps the user's environment
        fps = max(int(chosen), 1)
    except ValueError:
        fps = 60  # what Textual does with a bad value
    constants.MAX_FPS = fps  # type: ignore[misc]
    screen.UPDATE_PERIOD = 1 / fps  # type: ignore[misc]
    return fps
