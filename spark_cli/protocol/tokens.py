"""What a "token" is in spark: a pre-tokenizer piece (about four characters of code), so the
engine's pacing and the session's context count agree without a real tokenizer."""

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
