"""Line tables and the per-step matchers of the locate ladder: each finder in `FINDERS`
returns every `Match` of its step in file order by one ``str.find`` over a keyed copy."""

from __future__ import annotations

import operator
from collections.abc import Callable
from functools import cached_property
from itertools import accumulate

from spark_cli.edits.locate.normalize import consistent_indent, dominant_unit, fold, split_indent
from spark_cli.edits.locate.reflow import find_reflowed, reflow_index
from spark_cli.edits.locate.reindent import paired_lines, reconcile
from spark_cli.record import record


class LineIndex:
    """Per-text line tables, each built on first use (the exact step needs none)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._keyed: dict[str, str] = {}

    @cached_property
    def real(self) -> int:
        """The number of real lines (a final newline does not start one)."""
        text = self.text
        return text.count("\n") + (0 if text.endswith("\n") or not text else 1)

    @cached_property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    @cached_property
    def starts(self) -> list[int]:
        lines = self.lines
        return list(map(operator.add, accumulate(map(len, lines), initial=0),
                        range(len(lines) + 1)))

    def unit_near(self, first: int, last: int) -> str | None:
        """The indentation unit around rows ``first``..``last`` (shell scripts mix them)."""
        unit: str | None = ""
        for radius in _NEAR:
            lo, hi = max(first - radius, 0), min(last + 1 + radius, self.real)
            unit = dominant_unit([split_indent(line)[0] for line in self.lines[lo:hi]
                                  if line.strip()])
            if unit or (lo == 0 and hi == self.real):
                break
        return unit

    @cached_property
    def rstripped(self) -> str:
        return "\n".join([line.rstrip() for line in self.lines])

    @cached_property
    def stripped(self) -> dict[str, list[int]]:
        table: dict[str, list[int]] = {}
        for i, line in enumerate(self.lines[:self.real]):
            table.setdefault(line.strip(), []).append(i)
        return table

    def keyed(self, kind: str) -> str:
        """The file's lines as keys ("strip": stripped, "fold": `fold`), one per line."""
        found = self._keyed.get(kind)
        if found is None:
            key_of = str.strip if kind == "strip" else fold
            found = self._keyed[kind] = "\n".join([key_of(x) for x in self.lines[:self.real]])
        return found

    @cached_property
    def nonblank(self) -> tuple[str, list[int]]:
        rows = [i for i, line in enumerate(self.lines[:self.real]) if line.strip()]
        return "\n".join([self.lines[i].strip() for i in rows]), rows

    @cached_property
    def reflowed(self) -> tuple[str, list[int], list[int]]:
        return reflow_index(self.lines[:self.real])

    def span(self, first: int, count: int) -> tuple[int, int]:
        last = first + count - 1
        return self.starts[first], self.starts[last] + len(self.lines[last])


_NEAR = (0, 8, 40, 200)  # lines either side of a match that tell the indentation unit
_last: LineIndex | None = None


def line_index(text: str) -> LineIndex:
    """The cached `LineIndex` of the last text seen (a file's hunks share one text)."""

    global _last
    if _last is None or (_last.text is not text and _last.text != text):
        _last = LineIndex(text)
    return _last


@record
class Match:
    """A place the search matches; ``make()`` builds its replacement (only for the chosen one)."""

    start: int  # character offsets
    end: int
    first: int  # 0-based first and last line
    last: int
    make: Callable[[], str]


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


def _reconciled(index: LineIndex, first: int, search: list[str],
                replace: list[str]) -> Match:
    """A match at file line ``first`` whose replacement is `reindent.reconcile`d."""
    count = len(search)
    start, end = index.span(first, count)

    def make() -> str:
        return "\n".join(reconcile(search, index.lines[first:first + count], replace,
                                     index.unit_near(first, first + count - 1)))

    return Match(start, end, first, first + count - 1, make)


def _exact(index: LineIndex, search: list[str], replace: list[str]) -> list[Match]:
    text = index.text
    out = []
    needle = "\n".join(search)
    phantom = not search[-1] and text.endswith("\n")  # may end on the "line" after the last

    body = "\n".join(replace)  # matched byte for byte: written as the model wrote it
    for pos, first in _whole_line_hits(text, needle):
        if not (phantom and pos + len(needle) == len(text)):
            out.append(Match(pos, pos + len(needle), first, first + len(search) - 1,
                             lambda: body))
    return out


def _trailing_ws(index: LineIndex, search: list[str], replace: list[str]) -> list[Match]:
    haystack = index.rstripped
    needle = "\n".join([line.rstrip() for line in search])
    out = []
    for _pos, first in _whole_line_hits(haystack, needle):
        if first + len(search) <= index.real:
            out.append(_reconciled(index, first, search, replace))
    return out


def _keyed_hits(index: LineIndex, kind: str, search: list[str]) -> list[int]:
    """First lines of the runs whose keys equal the search's keys (one C-level scan)."""
    key_of = str.strip if kind == "strip" else fold
    needle = "\n".join([key_of(line) for line in search])
    limit = index.real - len(search)
    return [first for _pos, first in _whole_line_hits(index.keyed(kind), needle)
            if first <= limit]


def _indent(index: LineIndex, search: list[str], replace: list[str]) -> list[Match]:
    out = []
    s_indents = [split_indent(line)[0] for line in search]
    for first in _keyed_hits(index, "strip", search):
        pairs = [(s_indents[k], split_indent(index.lines[first + k])[0])
                 for k, line in enumerate(search) if line.strip()]
        if consistent_indent(pairs):
            out.append(_reconciled(index, first, search, replace))
    return out


def _equal_runs(index: LineIndex, search: list[str], replace: list[str],
                kind: str) -> list[Match]:
    return [_reconciled(index, first, search, replace)
            for first in _keyed_hits(index, kind, search)]


def _blank_lines(index: LineIndex, search: list[str], replace: list[str]) -> list[Match]:
    if not search[0].strip() or not search[-1].strip():
        return []  # its edge blank lines fall outside the region: the trimmed variant fits
    texts = [line for line in search if line.strip()]
    joined, rows = index.nonblank
    out = []
    for _pos, k in _whole_line_hits(joined, "\n".join([t.strip() for t in texts])):
        found = rows[k:k + len(texts)]
        start, end = index.span(found[0], found[-1] - found[0] + 1)
        out.append(Match(start, end, found[0], found[-1],
                         _blank_lines_maker(index, search, texts, found, replace)))
    return out


def _blank_lines_maker(index: LineIndex, search: list[str], texts: list[str],
                       found: list[int], replace: list[str]) -> Callable[[], str]:
    def make() -> str:
        rows = iter(found)
        file_lines = [index.lines[next(rows)] if s.strip() else None for s in search]
        new = reconcile(search, file_lines, replace, index.unit_near(found[0], found[-1]))
        return "\n".join(_keep_blank_lines(index, search, texts, found, replace, new))

    return make


def _keep_blank_lines(index: LineIndex, search: list[str], texts: list[str], rows: list[int],
                      replace: list[str], new: list[str]) -> list[str]:
    """The file's blank lines where the search's count of them was a miscopy, not a change."""
    gaps = [0] * len(texts)  # blank lines after each non-blank search line, in the search
    k = -1
    for line in search:
        if line.strip():
            k += 1
        elif k >= 0:
            gaps[k] += 1
    r_rows = [j for j, line in enumerate(replace) if line.strip()]
    pairs = {r_rows[j]: i  # non-blank replacement line -> search line
             for j, i in paired_lines(texts, [replace[j] for j in r_rows]).items()}
    out: list[str] = []
    j = 0
    while j < len(new):
        out.append(new[j])
        i = pairs.get(j)
        after = j + 1
        while after < len(replace) and not replace[after].strip():
            after += 1
        if (i is not None and i + 1 < len(rows) and pairs.get(after) == i + 1
                and after - j - 1 == gaps[i]):
            out.extend(index.lines[rows[i] + 1:rows[i + 1]])
            j = after
            continue
        j += 1
    return out


def _fragment(index: LineIndex, search: list[str], replace: list[str]) -> list[Match]:
    """A one-line search inside a line, unless it cuts a word or starts a longer line."""
    if len(search) != 1 or len(replace) > 1:
        return []
    needle = search[0].strip()
    fragment = replace[0].strip() if replace else ""
    text = index.text
    out = []
    first = last = 0
    pos = text.find(needle)
    while pos >= 0:
        first += text.count("\n", last, pos)
        last = pos
        end = pos + len(needle)
        line_start = text.rfind("\n", 0, pos) + 1
        line_end = text.find("\n", end)
        rest = text[end:line_end if line_end >= 0 else len(text)]
        starts_line = not text[line_start:pos].strip()
        if not _cuts_word(text, pos, end) and not (starts_line and rest.strip()):
            out.append(Match(pos, end, first, first, lambda: fragment))
        pos = text.find(needle, pos + 1)
    return out


def _cuts_word(text: str, start: int, end: int) -> bool:
    def word(ch: str) -> bool:
        return ch.isalnum() or ch == "_"

    before = start > 0 and word(text[start - 1]) and word(text[start])
    after = end < len(text) and word(text[end]) and word(text[end - 1])
    return before or after


def _reflow(index: LineIndex, search: list[str], replace: list[str]) -> list[Match]:
    out = []
    for first, last, make in find_reflowed(index, search, replace):
        start, end = index.span(first, last - first + 1)
        out.append(Match(start, end, first, last, make))
    return out


# The ladder's steps, strict to loose: the first with a match decides.
FINDERS: dict[str, Callable[[LineIndex, list[str], list[str]], list[Match]]] = {
    "exact": _exact, "trailing_ws": _trailing_ws, "indent": _indent,
    "trimmed": lambda i, s, r: _equal_runs(i, s, r, "strip"),
    "unicode": lambda i, s, r: _equal_runs(i, s, r, "fold"), "blank_lines": _blank_lines,
    "fragment": _fragment, "reflow": _reflow,
}
