"""``read_file {path, start_line?, end_line?}``: a text file with 1-based line numbers,
whole within the caps, else a window with a line saying what was shown; decoded as edits
decode; an editor's buffer read first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from spark_cli.edits.disk.textfile import decode
from spark_cli.edits.model.outcome import FileRefused
from spark_cli.tools.access import Access
from spark_cli.tools.defs import READ_MAX_BYTES as MAX_BYTES
from spark_cli.tools.defs import READ_MAX_LINES as MAX_LINES
from spark_cli.tools.model import ToolFailure, ToolResult, Value
from spark_cli.tools.repo_files import Cancelled

if TYPE_CHECKING:
    import threading

READ_LIMIT = 16 * 1024 * 1024
SNIFF_BYTES = 8192
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def read_file(access: Access, args: dict[str, Value],
              cancel: threading.Event | None = None) -> ToolResult:
    """Run ``read_file``; raises `ToolFailure` for a call that cannot be answered."""
    target = access.locate(str(args["path"]), want="file")
    rel = target.rel
    if target.size > READ_LIMIT:
        raise ToolFailure(f"{rel} is too large to read ({target.size:,} bytes; the limit is "
                          f"{READ_LIMIT // (1024 * 1024)} MB); search it instead", "too large")
    buffer = access.buffers(str(target.path)) if access.buffers is not None else None
    data = _read(target.path.as_posix(), rel) if buffer is None else buffer.encode("utf-8")
    if cancel is not None and cancel.is_set():
        raise Cancelled
    try:
        text = decode(data, name=rel, size_limit=READ_LIMIT).text
    except FileRefused as refused:
        raise _refusal(rel, refused) from None
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    total = len(lines) if text else 0
    start = int(args.get("start_line", 1))
    if start > max(total, 1):
        raise ToolFailure(f"read_file: start_line {start} is past the end of {rel} "
                          f"({total} lines)", "start_line past the end")
    end_arg = args.get("end_line")
    if end_arg is not None and int(end_arg) < start:
        raise ToolFailure(f"read_file: end_line {end_arg} is before start_line {start}",
                          "bad end_line")
    if total == 0:
        return ToolResult(True, "[empty file]", f"{rel} (empty)")
    windowed = "start_line" in args or end_arg is not None
    if not windowed and total <= MAX_LINES and len(data) <= MAX_BYTES:
        body = [f"{n:>6}\t{line}" for n, line in enumerate(lines, 1)]
        return ToolResult(True, "\n".join(body), f"{rel} 1–{total} of {total}")
    end = min(total, start + MAX_LINES - 1, int(end_arg) if end_arg is not None else total)
    body, last = _window(lines, start, end)
    if (start, last) != (1, total):
        body.append(f"[lines {start}–{last} of {total}; ask read_file with start_line/end_line "
                    "for more]")
    return ToolResult(True, "\n".join(body), f"{rel} {start}–{last} of {total}")


def _window(lines: list[str], start: int, end: int) -> tuple[list[str], int]:
    """Lines ``start``..``end`` numbered, within ``MAX_BYTES`` of text; and the last one shown."""
    body: list[str] = []
    used = 0
    for n in range(start, end + 1):
        line = lines[n - 1]
        size = len(line.encode("utf-8", "surrogatepass")) + 1
        if body and used + size > MAX_BYTES:
            return body, n - 1
        if size > MAX_BYTES:
            kept = line.encode("utf-8", "surrogatepass")[:MAX_BYTES].decode("utf-8", "ignore")
            line = f"{kept} [… line cut: {len(line):,} characters in all]"
        body.append(f"{n:>6}\t{line}")
        used += size
    return body, end


def _read(path: str, rel: str) -> bytes:
    """The file's bytes; a binary file is refused from its first 8 KB, unread past them."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(SNIFF_BYTES)
            if b"\x00" in head and not head.startswith(_UTF16_BOMS):
                raise ToolFailure(f"{rel} is a binary file", "binary file")
            return head + handle.read()
    except PermissionError:
        raise ToolFailure(f"{rel}: permission denied", "permission denied") from None
    except IsADirectoryError:
        raise ToolFailure(f"{rel} is a folder, not a file", "is a folder") from None
    except OSError as exc:
        raise ToolFailure(f"{rel}: cannot be read ({exc.strerror})", "unreadable") from None


def _refusal(rel: str, refused: FileRefused) -> ToolFailure:
    if refused.reason == "binary":
        return ToolFailure(f"{rel} is a binary file", "binary file")
    if refused.reason == "encoding":
        return ToolFailure(f"{rel} is not UTF-8 text", "not UTF-8")
    if refused.reason == "too_large":
        return ToolFailure(f"{rel} is too large to read; search it instead", "too large")
    return ToolFailure(refused.message, "unreadable")
