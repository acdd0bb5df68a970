"""``search {pattern, path?, glob?}``: the repo's lines a pattern matches, like ``rg -n``.

The files are those ``list_files`` would list under ``path`` (a folder or one file;
``.gitignore`` honoured, files the user named or added included), less files with a
binary extension (images, archives, objects: not ``.lock`` files) and files over
``MAX_FILE_BYTES`` (skipped unread). Each file's first 8 KB are read first: a NUL byte
there marks it binary and the rest is never read. The pattern is RE2 (:mod:`.pattern`
says why); one that does not compile is searched as fixed text behind a first line
``[pattern is not a valid regex; searched as fixed text]``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from spark_cli.tools.access import Access
from spark_cli.tools.defs import SEARCH_MAX_HITS as MAX_HITS
from spark_cli.tools.list_files import folder_files, glob_filter
from spark_cli.tools.model import ToolFailure, ToolResult, Value
from spark_cli.tools.pattern import Hit, Matcher, compile_pattern
from spark_cli.tools.repo_files import BINARY_EXTENSIONS, Cancelled

if TYPE_CHECKING:
    import threading

MAX_FILE_BYTES = 1024 * 1024
LINE_CHARS = 200
SNIFF_BYTES = 8192
SKIPPED_EXTENSIONS = BINARY_EXTENSIONS - {".lock"}  # lock files are text worth searching
FIXED_NOTE = "[pattern is not a valid regex; searched as fixed text]"


def search(access: Access, args: dict[str, Value],
           cancel: threading.Event | None = None) -> ToolResult:
    """Run ``search``; raises `ToolFailure` for a call that cannot be answered.

    Output: ``path:line:text`` per matching line (text cut to about ``LINE_CHARS``
    characters, around the match when it starts far in), at most ``MAX_HITS`` lines, then
    ``[N more matches not shown]``; ``no matches`` when there are none. Past the cap the
    rest are only counted. Cancel is checked between files (each at most 1 MB)."""
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
    """The file's bytes, or None for a binary one (read no further than its first 8 KB).
    ``os.read`` on a descriptor: cheaper than a buffered ``open`` over thousands of files."""
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
