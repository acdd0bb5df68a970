"""The locate ladder: where in a file one hunk's SEARCH text is, strict to loose.

`locate(text, hunk)` returns a `Located` region (character offsets into the
"\\n"-normalised text) and the replacement adapted to the file, or raises
`LocateFailed` ("missing" with the nearest similar lines, "ambiguous" with the
candidate lines). It never guesses by edit distance: every step compares whole
lines for equality after a fixed normalisation.

Steps, in order; the first step with any match decides:
1. ``exact``: the search lines equal a run of file lines;
2. ``trailing_ws``: equal after stripping trailing whitespace;
3. ``indent``: equal after one consistent indentation change (prefix added or
   removed, or spaces ↔ tabs); the replacement is re-indented the same way;
4. ``trimmed``: equal after stripping each line; the replacement is
   re-indented relative to the first matched line;
5. ``unicode``: equal after `normalize.fold` (NFKC, curly quotes, dashes, NBSP…);
6. ``blank_lines``: the non-blank lines equal (trimmed) the file's non-blank
   lines of a region, blank lines ignored on both sides (models drop or add
   them); the region runs from the first to the last matched line;
7. ``fragment``: a one-line search that is not a whole line but occurs exactly
   once, verbatim (stripped), inside a line: only that substring is replaced.
Each step is tried with the search as given and then without its leading and
trailing blank lines (models add them). A lone trailing newline in SEARCH or
REPLACE is not a line.

Several matches at one step are narrowed, in order, by: ``at_eof`` (matches
ending at the last non-blank line, if any do); anchors (matches overlapping
the anchored ranges from `anchors.find_anchor_ranges`; if none overlap, a
unique match anywhere is still taken, and among several the ones after the
first anchored line are preferred); ``search_from`` (the first match starting
at or after that offset, so repeated snippets resolve in hunk order). Still
several → refused as ambiguous. The step name is prefixed ``anchor:`` when the
anchor made the choice.

An empty SEARCH inserts: after the anchored line when anchors resolve to one
range, else at the end of the file (``append``).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import TYPE_CHECKING, Protocol

from spark_cli.edits.anchors import find_anchor_ranges
from spark_cli.edits.misses import LocateFailed, ambiguous, missing
from spark_cli.edits.normalize import fold, indent_offset, relative_reindent, split_indent

if TYPE_CHECKING:
    from spark_cli.edits.anchors import Range

_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_STEPS = ("exact", "trailing_ws", "indent", "trimmed", "unicode", "blank_lines", "fragment")


class HunkLike(Protocol):
    @property
    def search(self) -> str: ...
    @property
    def replace(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Located:
    """Replace ``text[start:end]`` with ``replacement``; ``line`` is 1-based."""

    start: int
    end: int
    replacement: str
    step: str
    line: int


class _Index:
    """Per-text line tables, each built on first use (the exact step needs none)."""

    __slots__ = ("_folded", "_lines", "_rstripped", "_starts", "_stripped", "real", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.real = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        self._lines: list[str] | None = None
        self._starts: list[int] | None = None
        self._rstripped: str | None = None
        self._stripped: dict[str, list[int]] | None = None
        self._folded: dict[str, list[int]] | None = None

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = self.text.split("\n")
        return self._lines

    @property
    def starts(self) -> list[int]:
        if self._starts is None:
            lines = self.lines
            self._starts = list(map(operator.add, accumulate(map(len, lines), initial=0),
                                    range(len(lines) + 1)))
        return self._starts

    def rstripped(self) -> str:
        if self._rstripped is None:
            self._rstripped = "\n".join([line.rstrip() for line in self.lines])
        return self._rstripped

    def stripped(self) -> dict[str, list[int]]:
        if self._stripped is None:
            table: dict[str, list[int]] = {}
            for i, line in enumerate(self.lines[:self.real]):
                table.setdefault(line.strip(), []).append(i)
            self._stripped = table
        return self._stripped

    def folded(self) -> dict[str, list[int]]:
        if self._folded is None:
            table: dict[str, list[int]] = {}
            for i, line in enumerate(self.lines[:self.real]):
                table.setdefault(fold(line), []).append(i)
            self._folded = table
        return self._folded

    def span(self, first: int, count: int) -> tuple[int, int]:
        last = first + count - 1
        return self.starts[first], self.starts[last] + len(self.lines[last])


_last: _Index | None = None


def _index(text: str) -> _Index:
    global _last
    if _last is None or (_last.text is not text and _last.text != text):
        _last = _Index(text)
    return _last


@dataclass(frozen=True, slots=True)
class _Match:
    start: int  # character offsets
    end: int
    first: int  # 0-based first and last line
    last: int
    replacement: str


def _lines(text: str) -> list[str]:
    if not text:
        return []
    if "\r" in text:  # the file is "\n"-normalised: so is the hunk
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n")


def _trim_blank_edges(search: list[str], replace: list[str]) -> tuple[list[str], list[str]]:
    lead = 0
    while lead < len(search) and not search[lead].strip():
        lead += 1
    tail = 0
    while tail < len(search) - lead and not search[len(search) - 1 - tail].strip():
        tail += 1
    r_lead = 0
    while r_lead < min(lead, len(replace)) and not replace[r_lead].strip():
        r_lead += 1
    r_tail = 0
    while (r_tail < min(tail, len(replace) - r_lead)
           and not replace[len(replace) - 1 - r_tail].strip()):
        r_tail += 1
    return search[lead:len(search) - tail], replace[r_lead:len(replace) - r_tail]


def locate(text: str, hunk: HunkLike, *, language: str | None = None,
           search_from: int = 0) -> Located:
    """Find where ``hunk.search`` is in ``text`` (see the module docstring for the rules)."""
    index = _index(text)
    anchors = tuple(getattr(hunk, "anchors", ()) or ())
    at_eof = bool(getattr(hunk, "at_eof", False))
    search, replace = _lines(hunk.search), _lines(hunk.replace)
    context = _Context(index, language, anchors, at_eof, search_from)
    if not any(line.strip() for line in search):
        return _insert(index, replace, context.ranges, anchors)
    variants = [(search, replace)]
    trimmed = _trim_blank_edges(search, replace)
    if trimmed[0] != search:
        variants.append(trimmed)
    for step in _STEPS:
        for s_lines, r_lines in variants:
            matches = _FINDERS[step](index, s_lines, r_lines)
            if matches:
                chosen, by_anchor = context.choose(matches)
                return _located(index, chosen, ("anchor:" if by_anchor else "") + step,
                                not r_lines)
    raise missing(index.lines, index.real, index.stripped(), trimmed[0], trimmed[1], anchors,
                  context.ranges)


def _located(index: _Index, match: _Match, step: str, deletion: bool) -> Located:
    start, end = match.start, match.end
    if deletion and step != "fragment":  # drop the lines' newline too
        if end < len(index.text):
            end += 1
        elif start > 0:
            start -= 1
    return Located(start, end, match.replacement, step, match.first + 1)


def _insert(index: _Index, replace: list[str], ranges: list[Range],
            anchors: Sequence[str]) -> Located:
    body = "\n".join(replace)
    if len(ranges) > 1:
        lines = ", ".join(str(s + 1) for s, _ in ranges)
        raise LocateFailed(
            f"the anchor {' / '.join(anchors)!r} matches {len(ranges)} places (lines {lines}) "
            "and the hunk has no context lines to choose between them; add a few unchanged "
            "lines around the change", "ambiguous", tuple(s + 1 for s, _ in ranges))
    text = index.text
    if ranges:
        row = _header_row(index, ranges[0], anchors[-1])
        position = index.starts[row + 1] if row + 1 < len(index.starts) - 1 else len(text)
        if position == len(text) and text and not text.endswith("\n"):
            return Located(position, position, "\n" + body, "anchor:insert", row + 2)
        return Located(position, position, body + "\n" if replace else "", "anchor:insert",
                       row + 2)
    if text and not text.endswith("\n") and body:
        body = "\n" + body
    elif body:
        body += "\n"
    return Located(len(text), len(text), body, "append", index.real + 1)


def _header_row(index: _Index, span: Range, anchor: str) -> int:
    words = [w for w in _IDENT.findall(anchor) if len(w) > 1]
    name = words[-1] if words else ""
    if "(" in anchor:
        before = _IDENT.findall(anchor.split("(", 1)[0])
        name = before[-1] if before else name
    pattern = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])") if name else None
    for row in range(span[0], min(span[1], index.real - 1) + 1):
        if pattern is None or pattern.search(index.lines[row]):
            return row
    return span[0]


class _Context:
    """What narrows several matches; anchor ranges are resolved only when needed."""

    def __init__(self, index: _Index, language: str | None, anchors: tuple[str, ...],
                 at_eof: bool, search_from: int) -> None:
        self.index, self.language, self.anchors = index, language, anchors
        self.at_eof, self.search_from = at_eof, search_from
        self._ranges: list[Range] | None = None

    @property
    def ranges(self) -> list[Range]:
        if self._ranges is None:
            self._ranges = (find_anchor_ranges(self.index.text, self.language, self.anchors)
                            if self.anchors else [])
        return self._ranges

    def choose(self, matches: list[_Match]) -> tuple[_Match, bool]:
        pool = matches
        if self.at_eof and len(pool) > 1:
            last = self.index.real - 1
            while last > 0 and not self.index.lines[last].strip():
                last -= 1
            at_end = [m for m in pool if m.last >= last]
            pool = at_end or pool
        by_anchor = False
        if self.anchors and len(pool) > 1 and self.ranges:
            inside = [m for m in pool if any(m.first <= e and s <= m.last for s, e in self.ranges)]
            if not inside:
                top = min(s for s, _ in self.ranges)
                inside = [m for m in pool if m.first >= top]
            if inside and len(inside) < len(pool):
                pool, by_anchor = inside, True
        if len(pool) == 1:
            return pool[0], by_anchor
        if self.search_from > 0:
            later = [m for m in pool if m.start >= self.search_from]
            if later:
                return later[0], by_anchor
        raise ambiguous(tuple(m.first + 1 for m in pool), self.anchors,
                        bool(self.anchors and self.ranges))


# --- finders: each returns every match of one step, in file order -----------------------

def _whole_line_hits(haystack: str, needle: str) -> list[tuple[int, int]]:
    """(offset, 0-based line) of each place ``needle`` covers whole lines of ``haystack``."""
    hits: list[tuple[int, int]] = []
    size, total = len(needle), len(haystack)
    line = last = 0
    pos = haystack.find(needle)
    while pos >= 0:
        end = pos + size
        if (pos == 0 or haystack[pos - 1] == "\n") and (end == total or haystack[end] == "\n"):
            line += haystack.count("\n", last, pos)  # counted once over the text in total
            last = pos
            hits.append((pos, line))
        pos = haystack.find(needle, pos + 1)
    return hits


def _match(index: _Index, first: int, count: int, replacement: list[str]) -> _Match:
    start, end = index.span(first, count)
    return _Match(start, end, first, first + count - 1, "\n".join(replacement))


def _exact(index: _Index, search: list[str], replace: list[str]) -> list[_Match]:
    text = index.text
    out = []
    needle = "\n".join(search)
    body = "\n".join(replace)
    for pos, first in _whole_line_hits(text, needle):
        if first + len(search) <= index.real:
            out.append(_Match(pos, pos + len(needle), first, first + len(search) - 1, body))
    return out


def _trailing_ws(index: _Index, search: list[str], replace: list[str]) -> list[_Match]:
    haystack = index.rstripped()
    needle = "\n".join([line.rstrip() for line in search])
    out = []
    for _pos, first in _whole_line_hits(haystack, needle):
        if first + len(search) <= index.real:
            out.append(_match(index, first, len(search), replace))
    return out


def _candidates(table: dict[str, list[int]], key_of: Callable[[str], str], index: _Index,
                search: list[str]) -> list[int]:
    """First lines of runs whose first non-blank line has the same key."""
    offset = next(k for k, line in enumerate(search) if line.strip())
    starts = table.get(key_of(search[offset]), [])
    limit = index.real - len(search)
    return [c - offset for c in starts if 0 <= c - offset <= limit]


def _indent(index: _Index, search: list[str], replace: list[str]) -> list[_Match]:
    out = []
    parts = [split_indent(line) for line in search]
    for first in _candidates(index.stripped(), str.strip, index, search):
        pairs = []
        for k, (s_indent, s_body) in enumerate(parts):
            f_indent, f_body = split_indent(index.lines[first + k])
            if s_body != f_body:
                break
            if s_body:
                pairs.append((s_indent, f_indent))
        else:
            reindent = indent_offset(pairs)
            if reindent is not None:
                out.append(_match(index, first, len(search), [reindent(r) for r in replace]))
    return out


def _equal_runs(index: _Index, search: list[str], replace: list[str],
                table: dict[str, list[int]], key_of: Callable[[str], str]) -> list[_Match]:
    out = []
    keys = [key_of(line) for line in search]
    lines = index.lines
    offset = next(k for k, line in enumerate(search) if line.strip())
    s_indent = split_indent(search[offset])[0]
    for first in _candidates(table, key_of, index, search):
        if all(key_of(lines[first + k]) == key for k, key in enumerate(keys)):
            f_indent = split_indent(lines[first + offset])[0]
            reindent = relative_reindent(s_indent, f_indent)
            out.append(_match(index, first, len(search), [reindent(r) for r in replace]))
    return out


def _trimmed(index: _Index, search: list[str], replace: list[str]) -> list[_Match]:
    return _equal_runs(index, search, replace, index.stripped(), str.strip)


def _unicode(index: _Index, search: list[str], replace: list[str]) -> list[_Match]:
    return _equal_runs(index, search, replace, index.folded(), fold)


def _blank_lines(index: _Index, search: list[str], replace: list[str]) -> list[_Match]:
    keys = [line.strip() for line in search if line.strip()]
    lines, real = index.lines, index.real
    s_indent = split_indent(next(line for line in search if line.strip()))[0]
    out = []
    for first in index.stripped().get(keys[0], []):
        row = first
        for key in keys[1:]:
            row += 1
            while row < real and not lines[row].strip():
                row += 1
            if row >= real or lines[row].strip() != key:
                break
        else:
            reindent = relative_reindent(s_indent, split_indent(lines[first])[0])
            start, end = index.span(first, row - first + 1)
            out.append(_Match(start, end, first, row, "\n".join(reindent(r) for r in replace)))
    return out


def _fragment(index: _Index, search: list[str], replace: list[str]) -> list[_Match]:
    if len(search) != 1 or len(replace) > 1:
        return []
    needle = search[0].strip()
    text = index.text
    out = []
    first = last = 0
    pos = text.find(needle)
    while pos >= 0:
        first += text.count("\n", last, pos)
        last = pos
        out.append(_Match(pos, pos + len(needle), first, first,
                          replace[0].strip() if replace else ""))
        pos = text.find(needle, pos + len(needle))
    return out


_FINDERS: dict[str, Callable[[_Index, list[str], list[str]], list[_Match]]] = {
    "exact": _exact, "trailing_ws": _trailing_ws, "indent": _indent,
    "trimmed": _trimmed, "unicode": _unicode, "blank_lines": _blank_lines,
    "fragment": _fragment,
}
