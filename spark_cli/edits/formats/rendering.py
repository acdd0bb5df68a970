"""Rendering edits as the text models emit: the inverse of the edit parser.

`render_search_replace` writes one SEARCH/REPLACE block, `render_apply_patch` a
whole `*** Begin Patch` envelope from `FileEdit` values, and `diff_to_apply_patch`
turns two versions of a file into an envelope whose hunks carry just enough
context to be unambiguous. Text is line-based: a non-empty search/replace text
that does not end with a newline is written as if it did (both formats are
line-oriented and cannot say "no newline here").
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from spark_cli.edits.model.blocks import FileEdit, Hunk

_FENCE_RUN = re.compile(r"^[ \t]*(`{3,}|~{3,})", re.MULTILINE)
_RULE = re.compile(r"^[ \t]*(={5,9})[ \t]*$", re.MULTILINE)


def _lines(text: str) -> list[str]:
    """The lines of `text` without their newlines ('' has no lines)."""
    if not text:
        return []
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n")


def _with_newline(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


def _fence_for(body: str, lang: str) -> str:
    """A ``` fence longer than any backtick fence inside `body` (so it cannot close early)."""
    longest = max((len(m.group(1)) for m in _FENCE_RUN.finditer(body) if m.group(1)[0] == "`"),
                  default=2)
    return "`" * max(3, longest + 1) + lang


def _marker_width(text: str) -> int:
    """7, or another width (5 to 9) when the text has '=======' lines of that width."""
    used = {len(m.group(1)) for m in _RULE.finditer(text)}
    return next((n for n in (7, 9, 8, 6, 5) if n not in used), 7)


def render_search_replace(path: str, search: str, replace: str, fence: str | None = "") -> str:
    """One SEARCH/REPLACE block: the path line, an optional fence, the markers, a final newline.

    `fence` is the fence's language ("" = a plain ``` fence, None = no fence). The markers
    are 7 characters wide unless the text has '=' lines that wide (then 9, 8, ...).
    """
    n = _marker_width(search + "\n" + replace)
    body = (f"{'<' * n} SEARCH\n{_with_newline(search)}{'=' * n}\n"
            f"{_with_newline(replace)}{'>' * n} REPLACE\n")
    if fence is None:
        return f"{path}\n{body}"
    opener = _fence_for(body, fence)
    closer = opener[: len(opener) - len(fence)] if fence else opener
    return f"{path}\n{opener}\n{body}{closer}\n"


def _hunk_body(search: str, replace: str) -> list[str]:
    """' '/'-'/'+' lines such that context+removed == search and context+added == replace."""
    old, new = _lines(search), _lines(replace)
    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.extend(" " + line for line in old[i1:i2])
            continue
        out.extend("-" + line for line in old[i1:i2])
        out.extend("+" + line for line in new[j1:j2])
    return out


def _render_hunk(hunk: Hunk) -> list[str]:
    headers = [f"@@ {anchor}" for anchor in hunk.anchors] or ["@@"]
    lines = headers + _hunk_body(hunk.search, hunk.replace)
    if hunk.at_eof:
        lines.append("*** End of File")
    return lines


def _render_file_edit(edit: FileEdit) -> list[str]:
    if edit.kind == "delete":
        return [f"*** Delete File: {edit.path}"]
    if edit.kind == "add":
        content = "".join(h.replace for h in edit.hunks)
        return [f"*** Add File: {edit.path}"] + ["+" + line for line in _lines(content)]
    lines = [f"*** Update File: {edit.path}"]
    if edit.move_to:
        lines.append(f"*** Move to: {edit.move_to}")
    for hunk in edit.hunks:
        lines.extend(_render_hunk(hunk))
    return lines


def render_apply_patch(edits: Sequence[FileEdit]) -> str:
    """A full `*** Begin Patch` ... `*** End Patch` envelope (with a final newline)."""
    lines = ["*** Begin Patch"]
    for edit in edits:
        lines.extend(_render_file_edit(edit))
    lines.append("*** End Patch")
    return "\n".join(lines) + "\n"


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
