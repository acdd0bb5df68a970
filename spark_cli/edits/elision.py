"""Elision lines (`...`, `# ... existing code ...`) in SEARCH/REPLACE text.

Models shorten long SEARCH blocks with a placeholder line. spark never guesses
what a placeholder stands for, but when SEARCH and REPLACE carry the SAME
placeholder lines in the same order, the hunk is unambiguous: each piece
between placeholders is located on its own (strict ladder, in order) and the
file text under each placeholder is kept as it is. `split_elided` finds those
pieces; anything else (placeholders only on one side, a piece with no text) is
not an elided hunk, and a missing match mentions the placeholder instead.
"""

from __future__ import annotations

import re
from itertools import pairwise

ELISION = re.compile(
    r"^\s*(?:(?:#|//|--|/\*|<!--|;)\s*)?(?:\.\.\.|…)(?:\s*\S.*)?$|"
    r"^\s*(?:#|//|/\*|<!--)\s*(?:\.\.\.\s*)?(?:rest|existing|unchanged|same)\b.*$", re.I)


def is_elision(line: str) -> bool:
    """Does ``line`` look like a placeholder for omitted code?"""
    return ELISION.match(line) is not None


def split_elided(search: list[str],
                 replace: list[str]) -> list[tuple[list[str], list[str]]] | None:
    """(search piece, replace piece) pairs around matching placeholder lines, or None."""
    s_marks = [i for i, line in enumerate(search) if is_elision(line)]
    r_marks = [i for i, line in enumerate(replace) if is_elision(line)]
    if not s_marks or len(s_marks) != len(r_marks):
        return None
    if [search[i].strip() for i in s_marks] != [replace[i].strip() for i in r_marks]:
        return None
    pieces = []
    s_prev = r_prev = 0
    for s_mark, r_mark in [*zip(s_marks, r_marks, strict=True), (len(search), len(replace))]:
        s_piece, r_piece = search[s_prev:s_mark], replace[r_prev:r_mark]
        if not any(line.strip() for line in s_piece):
            return None  # a placeholder at an edge or two in a row: nothing to hold on to
        pieces.append((s_piece, r_piece))
        s_prev, r_prev = s_mark + 1, r_mark + 1
    return pieces


def join_pieces(text: str, spans: list[tuple[int, int, str]]) -> str:
    """The replacement for ``text[spans[0].start:spans[-1].end]``: each piece's
    replacement, with the file text between pieces kept."""
    parts = [spans[0][2]]
    for (_s, end, _r), (start, _e, replacement) in pairwise(spans):
        parts.append(text[end:start])
        parts.append(replacement)
    return "".join(parts)
