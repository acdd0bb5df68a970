"""A call's arguments from the pieces the server streamed: joined, never parsed.

The pieces are parts of a JSON *string* the model writes, split anywhere: inside
an escape (``\\u00`` then ``e9``) or, where a server escapes its frames as
UTF-16 (``\\ud83d`` then ``\\ude00``), between the two halves of one character.
Joining restores the first; the second leaves a surrogate pair in the joined
text, which is made one character again (a half that stays alone becomes U+FFFD).
Done once per call, never per piece.
"""

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
