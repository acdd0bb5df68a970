"""`spark edit` after an overflow answer: remember the window, trim, send once more.

The session has already learned the server's window (and its count of spark's text)
from the answer (:mod:`spark_cli.session.window_learning`). Nothing was output, so
it is safe to prepare the request once more within that window: the repo map and the
files spark picked itself are trimmed first, never the files named or the
instruction. When what was named does not fit even so, the preparation's own
failure (exit 2, naming the biggest parts and the window) replaces the overflow.
The window is cached for the next run (:func:`spark_cli.cli.window_setup.remember`).

Only the first request is sent again: when a tool loop's follow-up overflowed, the
model had already called tools and the turn keeps them, so the run ends there (the
loop itself shortens this turn's older tool outputs to the window it was given).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from spark_cli.transport.overflow import SAID

if TYPE_CHECKING:
    from spark_cli.cli.edit.turn_result import TurnResult
    from spark_cli.render.renderer import Renderer
    from spark_cli.session.api import SessionApi
    from spark_cli.session.config.settings import Settings


def overflow_retry(session: SessionApi, settings: Settings, instruction: str,
                   files: Sequence[str], renderer: Renderer, result: TurnResult) -> bool:
    """After an overflow answer that taught the window (``settings``: what the turn was
    sent with); True when the request is prepared again and ready to send."""
    failure = result.failure
    if failure is None or failure.kind != "context_length" or result.outcomes \
            or result.rejected or session.settings == settings:
        return False
    from spark_cli.cli.window_setup import remember

    learned = session.settings
    remember(learned, learned.context_window, learned.token_scale)
    renderer.note(f"... {failure.message.split('; ' + SAID, 1)[0]}")
    if session.marks.first_output_at is not None:  # a tool loop's follow-up overflowed
        renderer.note("... not sent again: the model had called tools already (the "
                      "conversation holds them); the next run is sized to this window")
        return False
    again = session.prepare(instruction, list(files))
    if again is not None:  # what was given does not fit: said with the figures, exit 2
        result.failure = again
        return False
    renderer.note(f"... sending once more within {learned.context_window:,} tokens (the "
                  "repo map and extra files trimmed first)")
    result.failure = None
    return True
