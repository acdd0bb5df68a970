"""The model's window as plain values: where it came from, and an answer that overflowed it.

:class:`Overflow` rides on a ``ChannelError`` of kind ``context_length`` (the figures a
server's answer gave, either may be unknown), so the session can say both sizes, learn
the window and trim. :func:`overflow_message` is the one wording:
"the request (9.5k tokens) is larger than the model's window (8.2k)".
"""

from __future__ import annotations

from spark_cli.record import record


@record
class Overflow:
    """A request the server refused as longer than its window."""

    requested: int | None
    """Tokens the server counted in the request (None: it did not say)."""
    window: int | None
    """The server's window in tokens (None: it did not say)."""


def kilo(tokens: int) -> str:
    """``9510`` -> ``9.5k``; below 1,000 as is."""
    return f"{tokens / 1000:.1f}k" if tokens >= 1000 else str(tokens)


def overflow_message(requested: int | None, window: int | None, *,
                     estimated: int | None = None) -> str:
    """The request (N tokens) is larger than the model's window (M): both sizes where known;
    ``estimated`` (spark's own count) stands in for a request size the server did not say."""
    if requested is not None:
        size = f" ({kilo(requested)} tokens)"
    elif estimated is not None:
        size = f" (about {kilo(estimated)} tokens)"
    else:
        size = ""
    limit = f" ({kilo(window)})" if window is not None else ""
    return f"the request{size} is larger than the model's window{limit}"
