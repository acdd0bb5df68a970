"""Minimal unified diffs of one file's text, as `spark apply` and `spark edit` show them.

The common head and tail are skipped before difflib sees the text, so one small
hunk in a 5,000-line file costs a few hundred microseconds, not a whole-file diff.
"""

from __future__ import annotations

import difflib

_NO_NEWLINE = "\\ No newline at end of file\n"


def _lines(text: str) -> list[str]:
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1] + "\n" + _NO_NEWLINE)
    return lines


def _range(start: int, length: int) -> str:
    if length == 1:
        return str(start + 1)
    return f"{start + (1 if length else 0)},{length}"


def unified_diff(path: str, old: str | None, new: str | None, *, context: int = 3,
                 old_path: str | None = None) -> str:
    """The unified diff from ``old`` to ``new`` ("\\n" text; None = file absent), "" if equal."""
    if old == new:
        return ""
    old_name = "/dev/null" if old is None else f"a/{old_path or path}"
    new_name = "/dev/null" if new is None else f"b/{path}"
    a, b = _lines(old or ""), _lines(new or "")
    header = f"--- {old_name}\n+++ {new_name}\n"
    if a == b:  # e.g. a pure rename
        return header
    head = 0
    limit = min(len(a), len(b))
    while head < limit and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < limit - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    matcher = difflib.SequenceMatcher(None, a[head : len(a) - tail], b[head : len(b) - tail],
                                      autojunk=False)
    codes = [(tag, i1 + head, i2 + head, j1 + head, j2 + head)
             for tag, i1, i2, j1, j2 in matcher.get_opcodes()]
    if head:
        codes.insert(0, ("equal", 0, head, 0, head))
    if tail:
        codes.append(("equal", len(a) - tail, len(a), len(b) - tail, len(b)))
    out = [header]
    for group in _groups(codes, context):
        i1, i2 = group[0][1], group[-1][2]
        j1, j2 = group[0][3], group[-1][4]
        out.append(f"@@ -{_range(i1, i2 - i1)} +{_range(j1, j2 - j1)} @@\n")
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                out.extend(" " + line for line in a[x1:x2])
                continue
            out.extend("-" + line for line in a[x1:x2])
            out.extend("+" + line for line in b[y1:y2])
    return "".join(out)


Opcode = tuple[str, int, int, int, int]


def _groups(codes: list[Opcode], context: int) -> list[list[Opcode]]:
    """Changed opcodes with up to ``context`` equal lines around them, merged when close."""
    groups: list[list[Opcode]] = []
    current: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag != "equal":
            current.append((tag, i1, i2, j1, j2))
            continue
        if current:  # an equal run after a change: close the group or bridge to the next
            if i2 - i1 > 2 * context:
                current.append((tag, i1, i1 + context, j1, j1 + context))
                groups.append(current)
                current = []
                i1, j1 = i2 - context, j2 - context
            else:
                current.append((tag, i1, i2, j1, j2))
                continue
        lead = min(context, i2 - i1)
        current = [(tag, i2 - lead, i2, j2 - lead, j2)] if lead else []
    if current and any(code[0] != "equal" for code in current):
        while current and current[-1][0] == "equal" and current[-1][2] - current[-1][1] > context:
            tag, i1, _i2, j1, _j2 = current.pop()
            current.append((tag, i1, i1 + context, j1, j1 + context))
        groups.append(current)
    return groups
