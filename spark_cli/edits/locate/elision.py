"""Elision lines (`...`, `# ... existing code ...`) in SEARCH/REPLACE text: matching ones
split a hunk into pieces (`split_elided`); one only REPLACE has is refused."""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import pairwise

ELISION = re.compile(
    r"^\s*(?:(?:#|//|--|/\*|<!--|;)\s*)?(?:\.\.\.|…)(?:\s*\S.*)?$|"
    r"^\s*(?:#|//|/\*|<!--)\s*(?:\.\.\.\s*)?(?:rest|existing|unchanged|same)\b.*$", re.I)

_MARK = r"(?:#+|//+|--|;+|\*|/\*+|<!--|\{/\*)"
_DOTS = r"(?:\.{3,}|…)"
_WORDS = (r"(?:existing|rest\s+of|remainder|remaining|unchanged|the\s+same|same\s+as|previous|"
          r"other|omitted|as\s+(?:before|is)|snip|etc|more\s+code|keep\b)")
_CLOSE = r"[\s.…*/>\-}]*"
_PLACEHOLDER = (
    rf"^[ \t]*{_MARK}[ \t]*{_DOTS}{_CLOSE}$|"  # "# ...", "/* ... */", "<!-- ... -->"
    rf"^[ \t]*{_MARK}[ \t]*{_DOTS}[^\n]*?\b{_WORDS}[^\n]*$|"  # "// ... existing code ..."
    rf"^[ \t]*{_MARK}[ \t]*[(\[]?[ \t]*{_WORDS}[^\n]*\b(?:code|unchanged|here|before|"
    rf"as\s+is|methods?|functions?|fields?|content|lines?|body|implementation|file|"
    rf"imports?|tests?|logic|same)\b[^\n]*$|"  # "# rest of the function unchanged"
    rf"^[ \t]*{_MARK}[ \t]*[(\[][ \t]*(?:unchanged|omitted|existing)[ \t]*[)\]]{_CLOSE}$|"
    rf"^[ \t]*{_DOTS}[ \t]*[^\n]*?\b{_WORDS}[^\n]*$"  # "... existing code ..."
)
# one compiled pattern for a line and a text (compiling is a start-up cost)
_PLACEHOLDER_ANY = re.compile(_PLACEHOLDER, re.I | re.M)


def is_elision(line: str) -> bool:
    """Does ``line`` look like a placeholder for omitted code (broadly)?"""
    return ELISION.match(line) is not None


def is_placeholder(line: str) -> bool:
    """Is ``line`` a placeholder comment for sure (strict: what refusals rely on)?"""
    return _PLACEHOLDER_ANY.match(line) is not None


def has_placeholder(text: str) -> bool:
    """Might ``text`` hold a placeholder line? (One C-level scan: the usual answer is no.)"""
    return _PLACEHOLDER_ANY.search(text) is not None


def unbacked_placeholder(search: Iterable[str], replace_text: str,
                         region: Iterable[str] = ()) -> str | None:
    """The first placeholder line of REPLACE that neither SEARCH nor ``region`` has."""
    if not has_placeholder(replace_text):
        return None
    backed = {line.strip() for line in search} | {line.strip() for line in region}
    for line in replace_text.split("\n"):
        if is_placeholder(line) and line.strip() not in backed:
            return line.strip()
    return None


def leading_blanks(lines: list[str]) -> int:
    return next((i for i, line in enumerate(lines) if line.strip()), len(lines))


def _drop_edges(search: list[str], replace: list[str]) -> tuple[list[str], list[str]]:
    """Drop a placeholder that is the first (or last) non-blank line of both sides."""
    while search and replace:
        s, r = leading_blanks(search), leading_blanks(replace)
        if s < len(search) and r < len(replace) and is_elision(search[s]) \
                and search[s].strip() == replace[r].strip():
            search, replace = search[s + 1:], replace[r + 1:]
            continue
        s = len(search) - 1 - leading_blanks(search[::-1])
        r = len(replace) - 1 - leading_blanks(replace[::-1])
        if s >= 0 and r >= 0 and is_elision(search[s]) and search[s].strip() == replace[r].strip():
            search, replace = search[:s], replace[:r]
            continue
        break
    return search, replace


def split_elided(search: list[str],
                 replace: list[str]) -> list[tuple[list[str], list[str]]] | None:
    """(search, replace) pieces around matching placeholder lines, or None."""
    trimmed = _drop_edges(search, replace)
    dropped = trimmed != (search, replace)
    search, replace = trimmed
    s_marks = [i for i, line in enumerate(search) if is_elision(line)]
    r_marks = [i for i, line in enumerate(replace) if is_elision(line)]
    if not any(line.strip() for line in search):
        return None
    if not s_marks and not r_marks:
        return [(search, replace)] if dropped else None
    if len(s_marks) != len(r_marks):
        return None
    if [search[i].strip() for i in s_marks] != [replace[i].strip() for i in r_marks]:
        return None
    pieces = []
    s_prev = r_prev = 0
    for s_mark, r_mark in [*zip(s_marks, r_marks, strict=True), (len(search), len(replace))]:
        s_piece, r_piece = search[s_prev:s_mark], replace[r_prev:r_mark]
        if not any(line.strip() for line in s_piece):
            return None  # two placeholders in a row: nothing to hold on to
        pieces.append((s_piece, r_piece))
        s_prev, r_prev = s_mark + 1, r_mark + 1
    return pieces


def join_pieces(text: str, spans: list[tuple[int, int, str]]) -> str:
    """The replacement for the pieces' whole span, keeping the file text between them."""
    parts = [spans[0][2]]
    for (_s, end, _r), (start, _e, replacement) in pairwise(spans):
        parts.append(text[end:start])
        parts.append(replacement)
    return "".join(parts)
