"""Two versions of a file as an apply_patch envelope whose hunks carry just enough context
to be unambiguous: the edit texts the apply and format tests feed the real parser."""

from __future__ import annotations

import difflib

from spark_cli.edits.formats.rendering import render_apply_patch
from spark_cli.edits.model.blocks import FileEdit, Hunk


def _lines(text: str) -> list[str]:
    """The lines of `text` without their newlines ('' has no lines)."""
    if not text:
        return []
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n")


def _occurrences(haystack: list[str], needle: list[str], limit: int = 2) -> int:
    """How many times `needle` occurs as a run of lines in `haystack` (counting up to `limit`)."""
    if not needle:
        return limit
    count, first, size = 0, needle[0], len(needle)
    for i in range(len(haystack) - size + 1):
        if haystack[i] == first and haystack[i : i + size] == needle:
            count += 1
            if count >= limit:
                break
    return count


def _grow(ranges: list[list[int]], index: int, lines: int, size: int) -> int:
    """Grow ranges[index] ([lo, hi, first_change, last_change]) by `lines` unchanged lines
    on each side, merging with neighbours it reaches; returns the range's new index."""
    r = ranges[index]
    r[0], r[1] = max(0, r[0] - lines), min(size, r[1] + lines)
    while index + 1 < len(ranges) and ranges[index + 1][0] <= r[1]:
        nxt = ranges.pop(index + 1)
        r[1], r[3] = max(r[1], nxt[1]), nxt[3]
    while index > 0 and ranges[index - 1][1] >= r[0]:
        prev = ranges.pop(index - 1)
        r[0], r[2] = min(r[0], prev[0]), prev[2]
        index -= 1
    return index


def _group_hunks(old: list[str], new: list[str], context: int) -> list[Hunk]:
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    changes = [op[1:] for op in matcher.get_opcodes() if op[0] != "equal"]
    ranges = [[i1, i2, k, k] for k, (i1, i2, _j1, _j2) in enumerate(changes)]
    index = 0
    while index < len(ranges):
        index = _grow(ranges, index, context, len(old)) + 1
    # Widen each hunk until its search text occurs once in the old file.
    index = 0
    while index < len(ranges):
        lo, hi = ranges[index][:2]
        if (lo > 0 or hi < len(old)) and _occurrences(old, old[lo:hi]) != 1:
            index = _grow(ranges, index, 1, len(old))
        else:
            index += 1
    hunks = []
    for lo, hi, first, last in ranges:
        jlo = changes[first][2] - (changes[first][0] - lo)
        jhi = changes[last][3] + (hi - changes[last][1])
        hunks.append(Hunk("".join(line + "\n" for line in old[lo:hi]),
                          "".join(line + "\n" for line in new[jlo:jhi]),
                          at_eof=hi == len(old) and bool(old)))
    return hunks


def diff_to_apply_patch(path: str, old: str, new: str, context: int = 3) -> str:
    """An envelope with one `*** Update File:` section whose hunks turn `old` into `new`."""
    old_lines, new_lines = _lines(old), _lines(new)
    hunks = _group_hunks(old_lines, new_lines, context)
    return render_apply_patch([FileEdit("update", path, tuple(hunks), "apply_patch")])
