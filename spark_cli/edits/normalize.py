"""Line normalisations for the locate ladder: Unicode folding and indentation offsets.

`fold(line)` maps what models (and word processors) substitute for ASCII back
to it: NFKC (full-width forms, NBSP and other spaces, ligatures, the ellipsis
`…` → `...`) plus a small table NFKC leaves alone (curly quotes, dashes, minus,
bullets, zero-width characters). ASCII lines are returned stripped, untouched.

`reindent_lines(search, found, replace)` re-indents for the trimmed steps,
where no single offset fits: by the file's own indentation of each line.
`indent_offset(pairs)` finds a consistent indentation change between search
lines and file lines (add a prefix, remove a prefix, or switch unit, e.g. four
spaces ↔ one tab) and returns a function that re-indents replacement lines
the same way, or None when the offsets disagree.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Callable, Sequence
from math import gcd

_FOLD_TABLE = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
    "\u00ab": '"', "\u00bb": '"',
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-",
    "\u2015": "-", "\u2212": "-", "\ufe58": "-",
    "\u2022": "*", "\u00b7": "*",
    "\u200b": "", "\u200c": "", "\u200d": "", "\u2060": "", "\ufeff": "",
    "\u00a0": " ", "\u202f": " ", "\u2007": " ",
})

Reindent = Callable[[str], str]


def fold(line: str) -> str:
    """``line`` stripped, with look-alike Unicode punctuation and spaces made ASCII."""
    if line.isascii():
        return line.strip()
    return unicodedata.normalize("NFKC", line).translate(_FOLD_TABLE).strip()


def split_indent(line: str) -> tuple[str, str]:
    """(leading whitespace, the rest without trailing whitespace)."""
    body = line.lstrip()
    return line[:len(line) - len(body)], body.rstrip()


def indent_offset(pairs: Sequence[tuple[str, str]]) -> Reindent | None:
    """A re-indenter when every (search indent, file indent) pair differs the same way.

    Tried in order: the file adds the same prefix to every line; the file lacks
    the same prefix on every line; both use one repeated unit (spaces or a tab)
    and the file is the same number of levels deeper or shallower.
    """
    if not pairs:
        return None
    s0, f0 = pairs[0]
    if f0.endswith(s0):
        extra = f0[:len(f0) - len(s0)]
        if all(f == extra + s for s, f in pairs):
            return lambda line: extra + line if line.strip() else line
    if s0.endswith(f0):
        cut = s0[:len(s0) - len(f0)]
        if all(s == cut + f for s, f in pairs):
            return lambda line: _remove_prefix(line, cut)
    return _unit_change(pairs)


def _remove_prefix(line: str, prefix: str) -> str:
    n = 0
    for a, b in zip(line, prefix, strict=False):
        if a != b:
            break
        n += 1
    return line[n:]


def _unit(indents: Sequence[str]) -> str | None:
    """The repeated indentation unit of ``indents`` ("\t" or n spaces), or None."""
    used = [i for i in indents if i]
    if not used:
        return ""
    if all(set(i) == {"\t"} for i in used):
        return "\t"
    if all(set(i) == {" "} for i in used):
        size = 0
        for i in used:
            size = gcd(size, len(i))
        if size > 4 and size % 4 == 0:
            size = 4
        return " " * size
    return None


def _unit_change(pairs: Sequence[tuple[str, str]]) -> Reindent | None:
    s_unit, f_unit = _unit([s for s, _ in pairs]), _unit([f for _, f in pairs])
    if s_unit is None or f_unit is None or not s_unit or not f_unit or s_unit == f_unit:
        return None
    shift = None
    for s, f in pairs:
        delta = len(f) // len(f_unit) - len(s) // len(s_unit)
        if len(s) % len(s_unit) or len(f) % len(f_unit) or (shift is not None and delta != shift):
            return None
        shift = delta
    assert shift is not None

    def reindent(line: str) -> str:
        indent, _body = split_indent(line)
        if not line.strip():
            return line
        levels, rest = 0, indent
        while rest.startswith(s_unit):
            levels, rest = levels + 1, rest[len(s_unit):]
        return f_unit * max(levels + shift, 0) + rest + line[len(indent):]

    return reindent


def reindent_lines(search: Sequence[str], found: Sequence[str],
                   replace: Sequence[str]) -> list[str]:
    """Re-indent ``replace`` for a match whose lines ``found`` equal ``search`` trimmed.

    ``search`` and ``found`` are corresponding non-blank lines. A replacement
    line that repeats a search line unchanged (aligned with difflib's matching
    blocks: alignment only, nothing is located by similarity) gets the
    indentation of its file line, so untouched lines come back exactly. Other
    lines: an indentation used in the search maps to the file's indentation for
    it (the latest one, when the search used it for several); an unseen one is
    placed relative to the first line.
    """
    pairs = [(split_indent(s)[0], split_indent(f)[0]) for s, f in zip(search, found, strict=True)]
    table: dict[str, str] = {}
    for s_indent, f_indent in pairs:
        table.setdefault(s_indent, f_indent)
    relative = relative_reindent(*pairs[0]) if pairs else (lambda line: line)
    keys = [line.strip() for line in search]
    same: dict[int, int] = {}
    matcher = difflib.SequenceMatcher(None, keys, [r.strip() for r in replace], autojunk=False)
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            same[block.b + k] = block.a + k
    out = []
    for j, line in enumerate(replace):
        body = line.lstrip()
        if not body:
            out.append(line)
        elif j in same:
            s_indent, f_indent = pairs[same[j]]
            table[s_indent] = f_indent  # an ambiguous indentation follows the latest line
            out.append(f_indent + body)
        else:
            indent = line[:len(line) - len(body)]
            out.append(table[indent] + body if indent in table else relative(line))
    return out


def relative_reindent(search_indent: str, file_indent: str) -> Reindent:
    """Re-indent replacement lines so that ``search_indent`` becomes ``file_indent``;
    lines indented less than ``search_indent`` lose the same amount from ``file_indent``."""
    if search_indent == file_indent:
        return lambda line: line

    def reindent(line: str) -> str:
        if not line.strip():
            return line
        indent = line[:len(line) - len(line.lstrip())]
        if indent.startswith(search_indent):
            return file_indent + line[len(search_indent):]
        short = len(search_indent) - len(indent)
        return file_indent[:max(len(file_indent) - short, 0)] + line.lstrip()

    return reindent
