"""A call's arguments from the pieces the server streamed: joined, never parsed.

Pieces may split a ``\\u`` escape or a UTF-16 surrogate pair; joining restores the first,
and a surrogate pair in the joined text is made one character (a lone half becomes U+FFFD)."""

from __future__ import annotations

from collections.abc import Iterable


def join_arguments(pieces: Iterable[str]) -> str:
    """The whole arguments text of a call."""
    text = "".join(pieces)
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # surrogates: halves of characters split between pieces
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text
