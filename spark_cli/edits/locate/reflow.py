"""The last ladder step, ``reflow``: the search with its lines joined or split, compared
with all whitespace left out; a match covers whole file lines and `MIN_TEXT` characters."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from itertools import accumulate
from typing import Protocol

from spark_cli.edits.lang.ends import common_ends


class ReflowIndex(Protocol):
    """What reflow needs of `matching.LineIndex` (so reflow does not import matching)."""

    @property
    def lines(self) -> list[str]: ...

    @property
    def reflowed(self) -> tuple[str, list[int], list[int]]: ...


Found = tuple[int, int, Callable[[], str]]  # first and last file row, the replacement maker

MIN_TEXT = 16  # non-space characters a reflowed search needs


def _key(line: str) -> str:
    return "".join(line.split())


def reflow_index(lines: list[str]) -> tuple[str, list[int], list[int]]:
    """The file's non-blank lines without whitespace, joined; each one's row and offset."""
    rows = [i for i, line in enumerate(lines) if line.strip()]
    keys = [_key(lines[i]) for i in rows]
    starts = list(accumulate(map(len, keys), initial=0))[:-1]
    return "".join(keys), rows, starts


def find_reflowed(index: ReflowIndex, search: list[str], replace: list[str]) -> list[Found]:
    """Every place the reflowed search matches whole file lines, in file order."""
    s_rows = [i for i, line in enumerate(search) if line.strip()]
    keys = [_key(search[i]) for i in s_rows]
    needle = "".join(keys)
    if len(needle) < MIN_TEXT:
        return []
    stream, rows, starts = index.reflowed
    out = []
    pos = stream.find(needle)
    while pos >= 0:
        k = bisect_left(starts, pos)
        end = pos + len(needle)
        after = bisect_left(starts, end)  # the first file key after the match, if it ends on one
        if k < len(starts) and starts[k] == pos and (
                end == len(stream) or (after < len(starts) and starts[after] == end)):
            last = after - 1
            out.append((rows[k], rows[last],
                        _maker(index, search, replace, s_rows, keys, pos, (rows[k], rows[last]))))
        pos = stream.find(needle, pos + 1)
    return out


def _maker(index: ReflowIndex, search: list[str], replace: list[str], s_rows: list[int],
           keys: list[str], pos: int, span: tuple[int, int]) -> Callable[[], str]:
    def make() -> str:
        _stream, rows, starts = index.reflowed
        first, last = span
        # where each non-blank search line starts in the stream
        offsets = list(accumulate(map(len, keys), initial=pos))[:-1]

        def file_row(line: int) -> int | None:
            """The file row where search line ``line`` starts, if a file line starts there."""
            m = bisect_left(s_rows, line)
            if m == len(s_rows):
                return last + 1
            k = bisect_left(starts, offsets[m])
            return rows[k] if k < len(starts) and starts[k] == offsets[m] else None

        head, tail = common_ends([a.strip() for a in search], [b.strip() for b in replace])
        cut = file_row(head) if head else first
        if cut is None:
            cut, head = first, 0
        resume = file_row(len(search) - tail) if tail else last + 1
        if resume is None or resume < cut:
            resume, tail = last + 1, 0
        middle = _indented(index.lines[first], search[s_rows[0]],
                           replace[head:len(replace) - tail])
        return "\n".join(index.lines[first:cut] + middle + index.lines[resume:last + 1])

    return make


def _indented(file_line: str, search_line: str, lines: list[str]) -> list[str]:
    """The model's lines moved from the search's first indentation to the file's."""
    f = file_line[:len(file_line) - len(file_line.lstrip())]
    s = search_line[:len(search_line) - len(search_line.lstrip())]
    if f == s:
        return list(lines)
    return [f + line[len(s):] if line.startswith(s) and line.strip() else line
            for line in lines]
