"""A search pattern compiled with RE2, and the lines of a file it matches.

Why RE2 (``google-re2``, Google's own binding): a model may write any pattern, and a
backtracking engine (Python's ``re``) can take exponential time on some (``(a+)+$``
against a long line of ``a``) inside one C call nothing can interrupt, so the turn would
hang. RE2 runs in time linear in the text for every pattern, so there is nothing to time
out (the ``regex`` package's ``timeout=`` only turns a lost wait into an error). Its
syntax is the one models know from ripgrep (no look-around, no backreferences), and it
searches the file's bytes as UTF-8, so a file without a match is never decoded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import re2

from spark_cli.record import record
from spark_cli.tools.model import ToolFailure

MAX_MEMORY = 64 * 1024 * 1024  # RE2's budget for one compiled pattern


@record
class Hit:
    """One matching line: its number (1-based), its bytes' bounds, where the match starts."""

    line: int
    start: int
    end: int
    column: int  # byte offset of the match within the line


def _options(*, literal: bool) -> Any:
    options = re2.Options()
    options.log_errors = False
    options.never_nl = True
    options.max_mem = MAX_MEMORY
    options.literal = literal
    options.never_capture = True  # only where a match starts is wanted
    return options


@record
class Matcher:
    """A compiled pattern; ``fixed`` when it was searched as plain text."""

    regex: Any
    fixed: bool

    def _finder(self) -> Callable[[bytes, int], int]:
        """``find(data, pos)``: where the next match starts, -1 for none. RE2's own
        ``Match`` (what the module's ``search`` wraps in a generator and a match object)
        when it is there: no generator and match object per matching line."""
        raw = getattr(self.regex, "_regexp", None)
        anchor = getattr(getattr(getattr(raw, "Anchor", None), "UNANCHORED", None), "value", None)
        if raw is not None and anchor is not None:
            match, unanchored = raw.Match, raw.Anchor.UNANCHORED

            def find(data: bytes, pos: int) -> int:
                return int(match(unanchored, data, pos, len(data))[0][0])

            return find
        search = self.regex.search

        def find_public(data: bytes, pos: int) -> int:
            found = search(data, pos)
            return -1 if found is None else int(found.start())

        return find_public

    def hits(self, data: bytes) -> Iterator[Hit]:
        """Each line of ``data`` the pattern matches, in order (a line at most once)."""
        find = self._finder()
        size = len(data)
        line = 1
        counted = 0  # newlines before this offset are in ``line``
        pos = 0
        while pos <= size and size:
            at = find(data, pos)
            if at < 0 or (at == size and data[size - 1] == 10):
                return  # (the empty "line" after the final newline is not a line)
            begin = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at)
            if end < 0:
                end = size
            line += data.count(b"\n", counted, begin)
            counted = begin
            yield Hit(line, begin, end, at - begin)
            pos = end + 1

    def count(self, data: bytes, pos: int = 0) -> int:
        """How many lines of ``data`` from offset ``pos`` (a line start) the pattern matches."""
        find = self._finder()
        size = len(data)
        found = 0
        while pos <= size and size:
            at = find(data, pos)
            if at < 0 or (at == size and data[size - 1] == 10):
                break
            found += 1
            end = data.find(b"\n", at)
            if end < 0:
                break
            pos = end + 1
        return found


def compile_pattern(pattern: str) -> Matcher:
    """``pattern`` as RE2 compiles it, or as fixed text when it does not compile.

    Like ``rg``, ``^`` and ``$`` match at line ends (multi-line mode; a CR before the
    newline is part of the line, as in ``rg`` without ``--crlf``), a match never spans
    lines (RE2's ``never_nl``: ``\\s`` and ``[^x]`` do not cross a newline) and each
    matching line counts once. A pattern RE2 cannot compile (a syntax error, look-around,
    too large) is searched as fixed text and ``fixed`` says so. Errors are never logged
    (``log_errors`` off: they would land on the TUI's terminal)."""
    if not pattern:
        raise ToolFailure("search: pattern is empty; give a regular expression or text to find",
                          "empty pattern")
    try:
        raw = pattern.encode("utf-8")
    except UnicodeEncodeError:
        raise ToolFailure("search: pattern is not valid Unicode text (a lone surrogate)",
                          "bad pattern") from None
    try:
        return Matcher(re2.compile(b"(?m)" + raw, _options(literal=False)), False)
    except re2.error:
        pass
    try:
        return Matcher(re2.compile(raw, _options(literal=True)), True)
    except re2.error:
        raise ToolFailure("search: pattern cannot be searched, not even as fixed text "
                          "(too long?)", "bad pattern") from None
