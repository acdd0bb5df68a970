"""What a "token" is in spark: a documented pre-tokenizer piece (about four characters of code).

The bundled engine paces output per piece, and the session counts context against the
model window with the same rule, so both agree without shipping a real tokenizer. A piece
is optional leading whitespace and then up to four word characters or up to three
punctuation characters; a run of whitespace with nothing after it is a piece of its own.
"""

from __future__ import annotations

import re

PIECE = re.compile(r"\s*(?:\w{1,4}|[^\w\s]{1,3})|\s+")
"""One token. Compiled once: the pacing path calls it per answer, not per token."""


def split_pieces(text: str) -> list[str]:
    """The text as a list of pieces; ``"".join(split_pieces(t)) == t`` always."""
    return PIECE.findall(text)


def count_tokens(text: str) -> int:
    """Number of pieces in ``text`` (the unit of ``max_output_tokens`` and usage)."""
    return sum(1 for _ in PIECE.finditer(text))


def kilo(tokens: int) -> str:
    """``9510`` -> ``9.5k``; below 1,000 as is."""
    return f"{tokens / 1000:.1f}k" if tokens >= 1000 else str(tokens)
