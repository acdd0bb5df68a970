"""``search {pattern, path?, glob?}``: the repo's lines a pattern matches, like ``rg -n``.

RE2 (linear, nothing to time out) searches bytes with ripgrep's syntax; a pattern it cannot
compile is searched as fixed text behind ``FIXED_NOTE``; binary files are skipped."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import re2

from spark_cli.record import record
from spark_cli.tools.access import Access
from spark_cli.tools.defs import SEARCH_MAX_HITS as MAX_HITS
from spark_cli.tools.list_files import folder_files, glob_filter
from spark_cli.tools.model import ToolFailure, ToolResult, Value
from spark_cli.tools.repo_files import BINARY_EXTENSIONS, Cancelled

if TYPE_CHECKING:
    import threading

MAX_FILE_BYTES = 1024 * 1024
LINE_CHARS = 200
SNIFF_BYTES = 8192
SKIPPED_EXTENSIONS = BINARY_EXTENSIONS - {".lock"}  # lock files are text worth searching
FIXED_NOTE = "[pattern is not a valid regex; searched as fixed text]"
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
        """``find(data, pos)``: where the next match starts, -1 for none."""
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

    def _lines(self, data: bytes, pos: int = 0) -> Iterator[tuple[int, int]]:
        """``(match start, line end)`` of each matching line of ``data`` from ``pos``, once each."""
        find = self._finder()
        size = len(data)
        while pos <= size and size:
            at = find(data, pos)
            if at < 0 or (at == size and data[size - 1] == 10):
                return  # (the empty "line" after the final newline is not a line)
            end = data.find(b"\n", at)
            if end < 0:
                end = size
            yield at, end
            pos = end + 1

    def hits(self, data: bytes) -> Iterator[Hit]:
        """Each line of ``data`` the pattern matches, in order."""
        line = 1
        counted = 0  # newlines before this offset are in ``line``
        for at, end in self._lines(data):
            begin = data.rfind(b"\n", 0, at) + 1
            line += data.count(b"\n", counted, begin)
            counted = begin
            yield Hit(line, begin, end, at - begin)

    def count(self, data: bytes, pos: int = 0) -> int:
        """How many lines of ``data`` from offset ``pos`` (a line start) the pattern matches."""
        return sum(1 for _ in self._lines(data, pos))


def compile_pattern(pattern: str) -> Matcher:
    """``pattern`` compiled as ``rg`` reads it (line-wise, never across lines), else fixed text."""
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


def search(access: Access, args: dict[str, Value],
           cancel: threading.Event | None = None) -> ToolResult:
    """Run ``search``: ``path:line:text`` lines, at most ``MAX_HITS``; else `ToolFailure`."""
    matcher = compile_pattern(str(args["pattern"]))
    target = access.locate(str(args["path"]) if "path" in args else None, want="any")
    keep = glob_filter(str(args["glob"]) if "glob" in args else None, target.rel)
    if not target.is_dir and target.size > MAX_FILE_BYTES:
        raise ToolFailure(f"{target.rel} is too large to search ({target.size:,} bytes; the "
                          f"limit is {MAX_FILE_BYTES // (1024 * 1024)} MB); read_file reads it "
                          "in windows", "too large")
    rels = folder_files(access, target, keep, max_bytes=MAX_FILE_BYTES,
                        skip_extensions=SKIPPED_EXTENSIONS, cancel=cancel)
    shown: list[str] = []
    total = 0
    root = str(access.root)
    for rel in rels:
        if cancel is not None and cancel.is_set():
            raise Cancelled
        try:
            data = _read_text(os.path.join(root, rel))
        except OSError as exc:
            if not target.is_dir:
                raise ToolFailure(f"{rel}: cannot be read ({exc.strerror})", "unreadable") from None
            continue
        if data is None:
            if not target.is_dir:
                raise ToolFailure(f"{rel} is a binary file", "binary file")
            continue
        if len(shown) >= MAX_HITS:
            total += matcher.count(data)
            continue
        for hit in matcher.hits(data):
            total += 1
            shown.append(f"{rel}:{hit.line}:{_line_text(data, hit)}")
            if len(shown) >= MAX_HITS:
                total += matcher.count(data, hit.end + 1)
                break
    return _result(matcher, shown, total)


def _result(matcher: Matcher, shown: list[str], total: int) -> ToolResult:
    lines = [FIXED_NOTE] if matcher.fixed else []
    if not shown:
        lines.append("no matches")
        return ToolResult(True, "\n".join(lines), "no matches")
    lines.extend(shown)
    if total > len(shown):
        lines.append(f"[{total - len(shown)} more matches not shown]")
    return ToolResult(True, "\n".join(lines), f"{total} hit" + ("" if total == 1 else "s"))


def _read_text(path: str) -> bytes | None:
    """The file's bytes, or None for a binary one (read no further than its first 8 KB)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        head = os.read(fd, SNIFF_BYTES)
        if b"\x00" in head:
            return None
        if len(head) < SNIFF_BYTES:
            return head
        return head + os.read(fd, MAX_FILE_BYTES)
    finally:
        os.close(fd)


def _line_text(data: bytes, hit: Hit) -> str:
    """The matching line as text, cut to about ``LINE_CHARS`` characters around the match."""
    raw = data[hit.start:hit.end].rstrip(b"\r")
    text = raw.decode("utf-8", "replace")
    if len(text) <= LINE_CHARS:
        return text
    column = len(raw[:hit.column].decode("utf-8", "replace"))
    begin = 0 if column < LINE_CHARS // 2 else column - LINE_CHARS // 4
    piece = text[begin:begin + LINE_CHARS]
    return ("…" if begin else "") + piece + ("…" if begin + LINE_CHARS < len(text) else "")
