"""Turning the rules brain's file changes into edit text: minimal hunks, either format.

A change is a file's old and new text. Its hunks hold only the lines that
change, widened by unchanged lines just until each search text occurs once in
the file as it is when that hunk applies (hunks apply in order) and holds a
non-blank line (a search of blank lines only is too weak an anchor); a pure
insertion always carries at least one context line (an empty SEARCH would mean "create
or append"). The text is rendered with :mod:`spark_cli.edits.formats`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from spark_cli.edits.blocks import FileEdit, Hunk
from spark_cli.edits.formats import render_apply_patch, render_search_replace
from spark_cli.engine.brains.base import EditFormat


@dataclass(frozen=True, slots=True)
class FileChange:
    path: str
    old: str
    new: str


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _count(haystack: list[str], needle: list[str]) -> int:
    size, count = len(needle), 0
    for i in range(len(haystack) - size + 1):
        if haystack[i:i + size] == needle:
            count += 1
            if count > 1:
                break
    return count


def _ranges(old: list[str], new: list[str]) -> list[list[int]]:
    """[i1, i2, j1, j2] per change, adjacent changes merged."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    out: list[list[int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if out and out[-1][1] >= i1:
            out[-1][1], out[-1][3] = i2, j2
        else:
            out.append([i1, i2, j1, j2])
    return out


def hunks_for(change: FileChange) -> list[Hunk]:
    """The minimal, unambiguous hunks that turn ``change.old`` into ``change.new``."""
    old, new = _lines(change.old), _lines(change.new)
    ranges = _ranges(old, new)
    hunks: list[Hunk] = []
    floor = 0  # where the last emitted hunk ended (old lines): never grow above it
    index = 0
    while index < len(ranges):
        r = ranges[index]
        i1, i2, j1, j2 = r
        if i1 == i2:  # pure insertion: take the line before (or after) as context
            if i1 > floor:
                i1, j1 = i1 - 1, j1 - 1
            elif i2 < len(old):
                i2, j2 = i2 + 1, j2 + 1
        while True:
            current = new[:j1] + old[i1:]  # the file when this hunk applies
            solid = any(line.strip() for line in old[i1:i2])  # not only blank lines
            if (solid and _count(current, old[i1:i2]) == 1) or (i1 <= floor and i2 >= len(old)):
                break
            if i2 < len(old) and (i1 <= floor or (i2 - r[1]) <= (r[0] - i1)):
                i2, j2 = i2 + 1, j2 + 1
            else:
                i1, j1 = i1 - 1, j1 - 1
        if index + 1 < len(ranges) and i2 > ranges[index + 1][0]:
            # grew into the next change: merge it into this one
            nxt = ranges[index + 1]
            nxt[0], nxt[2] = i1, j1
            index += 1
            continue
        hunks.append(Hunk("".join(old[i1:i2]), "".join(new[j1:j2]),
                          at_eof=i2 == len(old)))
        floor = i2
        index += 1
    return hunks


def render_changes(changes: Sequence[FileChange], fmt: EditFormat) -> Iterator[str]:
    """The edit text for ``changes``: SEARCH/REPLACE blocks (blank line between) or one
    apply_patch envelope."""
    if fmt == "apply_patch":
        edits = [FileEdit("update", c.path, tuple(hunks_for(c)), "apply_patch")
                 for c in changes]
        yield render_apply_patch(edits)
        return
    first = True
    for change in changes:
        for hunk in hunks_for(change):
            if not first:
                yield "\n"
            first = False
            yield render_search_replace(change.path, hunk.search, hunk.replace, fence="")
