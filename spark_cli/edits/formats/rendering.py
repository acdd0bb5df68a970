"""Rendering edits as the text models emit (the inverse of the edit parser); a text without
a final newline is written as if it had one."""

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


def render_search_replace(path: str, search: str, replace: str, fence: str | None = "") -> str:
    """One SEARCH/REPLACE block; `fence`: its language ("" = plain, None = no fence)."""
    used = {len(m.group(1)) for m in _RULE.finditer(search + "\n" + replace)}  # '=' lines
    n = next((n for n in (7, 9, 8, 6, 5) if n not in used), 7)
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
