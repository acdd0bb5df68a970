"""What an overflow answer teaches: the server's window, and how it counts spark's text.

When a server refuses a request as longer than its window, its answer often says
both sizes (:class:`~spark_cli.protocol.window.Overflow`). The session keeps them:
the window replaces the assumed one (``max_output_tokens`` follows it unless
configured), and the ratio of the server's count to spark's own count of the same
request becomes the ``token_scale``, so the next request (a one-shot's single retry,
or the next TUI turn) is sized to what the server really takes.
"""

from __future__ import annotations

from dataclasses import replace

from spark_cli.protocol.channel import ChannelError
from spark_cli.session.config.settings import Settings, with_window

LEARNED = "the server's overflow answer"
"""``sources["context_window"]`` once the window came from an overflow answer."""
MARGIN = 1.02
"""A learned ratio is used with this margin."""


def learn(settings: Settings, failure: ChannelError | None, pieces: int) -> Settings | None:
    """``settings`` with what ``failure`` (an overflow of a request of ``pieces`` spark
    tokens) taught, or None when it was no overflow or taught nothing new."""
    if failure is None or failure.kind != "context_length" or failure.overflow is None:
        return None
    overflow = failure.overflow
    scale = settings.token_scale
    if overflow.requested and pieces > 0:
        scale = max(scale, round(overflow.requested / pieces * MARGIN, 3))
    window = overflow.window
    if window and window != settings.context_window:
        return with_window(settings, window, LEARNED, token_scale=scale)
    if scale != settings.token_scale:
        return replace(settings, token_scale=scale)
    return None
