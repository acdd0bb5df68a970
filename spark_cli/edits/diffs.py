"""Minimal unified diffs of one file's text, as `spark apply` and `spark edit` show them."""

from __future__ import annotations

import difflib

_NO_NEWLINE = "\\ No newline at end of file\n"


def _lines(text: str) -> list[str]:
    lines = _split_lf(text)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n" + _NO_NEWLINE
    return lines


def _split_lf(text: str) -> list[str]:
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def unified_diff(path: str, old: str | None, new: str | None, *, context: int = 3,
                 old_path: str | None = None) -> str:
    """The unified diff from ``old`` to ``new`` ("\\n" text; None = file absent), "" if equal."""
    if old == new:
        return ""
    old_name = "/dev/null" if old is None else f"a/{old_path or path}"
    new_name = "/dev/null" if new is None else f"b/{path}"
    old_lines = _lines(old or "")
    new_lines = _lines(new or "")
    if old_lines == new_lines:  # e.g. a pure rename
        return f"--- {old_name}\n+++ {new_name}\n"
    body = difflib.unified_diff(old_lines, new_lines, old_name, new_name, n=context)
    return "".join(body)
