"""Reading the results of spark's read-only tools, as the client's tools package writes them.

Pure functions of the output text; an output that fits none of these fixed formats (the
client produces them) is an error:

- ``read_file``: each line ``f"{n:>6}\\t{text}"``; a windowed read ends with the line
  ``[lines A–B of N; ask read_file with start_line/end_line for more]``; an error is
  one line of its own.
- ``search``: ``path:line:text`` lines, maybe a first line ``[pattern is not a valid
  regex; searched as fixed text]`` and a last line ``[N more matches not shown]``;
  ``no matches`` when nothing matched.
- ``list_files``: one repo-relative path a line, maybe ``[N more files not shown]``.
"""

from __future__ import annotations

import posixpath
import re

from spark_cli.record import record

_NUMBERED = re.compile(r" *(\d+)\t(.*)")
_WINDOW = re.compile(r"\[lines (\d+)[–-](\d+) of (\d+);")
_HIT = re.compile(r"(.+?):(\d+):")
_MORE = re.compile(r"\[(\d+) more \w+ not shown\]")


@record
class ReadResult:
    """A ``read_file`` result: its numbered lines, the window it was (None: the whole
    file), or the error it reported."""

    lines: tuple[tuple[int, str], ...] = ()
    window: tuple[int, int, int] | None = None
    """``(first, last, total)`` lines when the file was shown in part."""
    error: str = ""


@record
class Listing:
    """A ``search`` or ``list_files`` result: the paths it names (first seen first), how
    many more it left out, or the error it reported."""

    paths: tuple[str, ...] = ()
    more: int = 0
    error: str = ""


def clean_path(path: str) -> str:
    """A repo-relative path as the brains key files (``./a//b.py`` -> ``a/b.py``)."""
    path = posixpath.normpath(path.strip()).lstrip("/")
    return "" if path == "." else path


def parse_read(output: str) -> ReadResult:
    lines: list[tuple[int, str]] = []
    window = None
    rows = output.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    for row in rows:
        numbered = _NUMBERED.fullmatch(row)
        if numbered:
            lines.append((int(numbered.group(1)), numbered.group(2)))
            continue
        found = _WINDOW.match(row)
        if found and lines:
            window = (int(found.group(1)), int(found.group(2)), int(found.group(3)))
            continue
        if not lines:
            return ReadResult(error=row.strip() or "empty result")
    return ReadResult(tuple(lines), window)


def parse_search(output: str) -> Listing:
    paths: dict[str, None] = {}
    more = 0
    other = ""
    for row in output.split("\n"):
        hit = _HIT.match(row)
        if hit:
            paths[clean_path(hit.group(1))] = None
        elif (found := _MORE.fullmatch(row.strip())) is not None:
            more = int(found.group(1))
        elif row.strip() and not row.startswith("[") and not other:
            other = row.strip()
    if not paths and other and other != "no matches":
        return Listing(error=other)
    return Listing(tuple(paths), more)


def parse_list(output: str) -> Listing:
    paths: list[str] = []
    more = 0
    for row in output.split("\n"):
        row = row.strip()
        if (found := _MORE.fullmatch(row)) is not None:
            more = int(found.group(1))
        elif row and not row.startswith("["):
            if " " in row and not paths and ("error" in row.lower() or ":" in row):
                return Listing(error=row)
            paths.append(clean_path(row))
    return Listing(tuple(paths), more)
