"""Minimal unified diffs of one file's text; the common head and tail are skipped before
difflib sees it."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Literal

from spark_cli.edits.lang.ends import common_prefix, common_suffix, lines_of

NO_NEWLINE = "\\ No newline at end of file\n"


def diff_lines(text: str | None) -> list[str]:
    """`lines_of` ``text``, a last line without newline marked as unified diffs do."""
    lines = lines_of(text)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n" + NO_NEWLINE
    return lines


def hunk_range(start: int, length: int) -> str:
    """A hunk header's ``start,length`` (0-based ``start``), as unified diffs write it."""
    return str(start + 1) if length == 1 else f"{start + (1 if length else 0)},{length}"


def unified_diff(path: str, old: str | None, new: str | None, *, context: int = 3,
                 old_path: str | None = None) -> str:
    """The unified diff from ``old`` to ``new`` ("\\n" text; None = file absent), "" if equal."""
    if old == new:
        return ""
    old_name = "/dev/null" if old is None else f"a/{old_path or path}"
    new_name = "/dev/null" if new is None else f"b/{path}"
    a_text, b_text = old or "", new or ""
    header = f"--- {old_name}\n+++ {new_name}\n"
    lo, a, b, pre, post = _window(a_text, b_text, context)
    if a == b:  # e.g. a pure rename
        return header
    matcher = difflib.SequenceMatcher(None, a[pre : len(a) - post], b[pre : len(b) - post],
                                      autojunk=False)
    codes: list[Opcode] = [(tag, i1 + pre, i2 + pre, j1 + pre, j2 + pre)
             for tag, i1, i2, j1, j2 in matcher.get_opcodes()]
    if pre:
        codes.insert(0, ("equal", 0, pre, 0, pre))
    if post:
        codes.append(("equal", len(a) - post, len(a), len(b) - post, len(b)))
    groups = _Grouped(codes).get_grouped_opcodes(context)
    return header + "".join(hunk_text(group, a, b, lo) for group in groups)


def hunk_text(group: Sequence[tuple[str, int, int, int, int]], a: list[str], b: list[str],
              lo: int = 0) -> str:
    """One hunk of difflib opcodes over `diff_lines` (``lo``: the lines' first line number)."""
    i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
    out = [f"@@ -{hunk_range(lo + i1, i2 - i1)} +{hunk_range(lo + j1, j2 - j1)} @@\n"]
    for tag, x1, x2, y1, y2 in group:
        if tag == "equal":
            out.extend(" " + line for line in a[x1:x2])
            continue
        out.extend("-" + line for line in a[x1:x2])
        out.extend("+" + line for line in b[y1:y2])
    return "".join(out)


def _window(a: str, b: str, context: int) -> tuple[int, list[str], list[str], int, int]:
    """The changed lines plus ``context`` each side: (first line, a's, b's, equal before, after)."""
    start = a.rfind("\n", 0, common_prefix(a, b, min(len(a), len(b)))) + 1  # a line start
    shift = len(b) - len(a)
    tail = len(a) - common_suffix(a, b, min(len(a), len(b)) - start)
    aligned_a = tail == 0 or a[tail - 1] == "\n"
    aligned_b = tail + shift == 0 or b[tail + shift - 1] == "\n"
    if not (aligned_a and aligned_b):
        newline = a.find("\n", tail)
        tail = len(a) if newline == -1 else newline + 1
    before = start
    for _ in range(context):
        if before == 0:
            break
        before = a.rfind("\n", 0, before - 1) + 1
    after = tail
    for _ in range(context):
        if after >= len(a):
            break
        newline = a.find("\n", after)
        after = len(a) if newline == -1 else newline + 1
    pre = a.count("\n", before, start)
    post = len(diff_lines(a[tail:after]))
    lo = a.count("\n", 0, before)
    return lo, diff_lines(a[before:after]), diff_lines(b[before : after + shift]), pre, post


Opcode = tuple[Literal["replace", "delete", "insert", "equal"], int, int, int, int]


class _Grouped(difflib.SequenceMatcher[str]):
    """difflib's ``get_grouped_opcodes`` over opcodes computed on the window only."""

    def __init__(self, codes: list[Opcode]) -> None:
        super().__init__(None, "", "", autojunk=False)
        self._codes = codes

    def get_opcodes(self) -> list[Opcode]:
        return self._codes
