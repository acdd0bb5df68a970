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


def _widen(old: list[str], new: list[str], r: list[int], floor: int) -> list[int] | None:
    """Grow change ``r`` ([i1, i2, j1, j2]) by unchanged lines, not above ``floor``, until
    its search text is non-blank and occurs once in the file as it is when it applies;
    None when that cannot be done below ``floor``."""
    i1, i2, j1, j2 = r
    if i1 == i2:  # pure insertion: take the line before (or after) as context
        if i1 > floor:
            i1, j1 = i1 - 1, j1 - 1
        elif i2 < len(old):
            i2, j2 = i2 + 1, j2 + 1
    while True:
        current = new[:j1] + old[i1:]  # the file when this hunk applies
        solid = any(line.strip() for line in old[i1:i2])  # not only blank lines
        if solid and _count(current, old[i1:i2]) == 1:
            return [i1, i2, j1, j2]
        if i2 < len(old) and (i1 <= floor or (i2 - r[1]) <= (r[0] - i1)):
            i2, j2 = i2 + 1, j2 + 1
        elif i1 > floor:
            i1, j1 = i1 - 1, j1 - 1
        else:
            return [i1, i2, j1, j2] if floor == 0 and i2 == len(old) else None


def hunks_for(change: FileChange) -> list[Hunk]:
    """The minimal, unambiguous hunks that turn ``change.old`` into ``change.new``."""
    old, new = _lines(change.old), _lines(change.new)
    pending = _ranges(old, new)
    done: list[list[int]] = []
    index = 0
    while index < len(pending):
        r = pending[index]
        floor = done[-1][1] if done else 0
        grown = _widen(old, new, r, floor)
        if grown is None:  # cannot stand alone: merge with the hunk before it
            prev = done.pop()
            pending[index] = [prev[0], r[1], prev[2], r[3]]
            continue
        if index + 1 < len(pending) and grown[1] > pending[index + 1][0]:
            nxt = pending[index + 1]  # grew into the next change: one hunk for both
            pending[index + 1] = [grown[0], nxt[1], grown[2], nxt[3]]
            index += 1
            continue
        done.append(grown)
        index += 1
    return [Hunk("".join(old[i1:i2]), "".join(new[j1:j2]), at_eof=i2 == len(old))
            for i1, i2, j1, j2 in done]


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
