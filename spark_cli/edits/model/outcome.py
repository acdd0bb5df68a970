"""What applying one FileEdit came to, readable by a model: `EditApplied` (in part under a
conflict: `refused` lists the hunks that did not) or `RefusedEdit` (nothing written)."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from spark_cli.record import record


class FileRefused(Exception):
    """A file spark will not touch, read or change as asked: ``reason`` and a ``message``."""

    def __init__(self, message: str, reason: str = "path", hunk_index: int | None = None,
                 line: int = 0, refused: tuple[HunkRefused, ...] = (),
                 syntax: SyntaxVerdict | None = None) -> None:
        super().__init__(message)
        self.message, self.reason, self.hunk_index, self.line = message, reason, hunk_index, line
        self.refused, self.syntax = refused, syntax


@record
class SyntaxVerdict:
    """What the syntax check found. ``language=None``: text mode, nothing was checked."""

    language: str | None
    ok: bool  # False only when the old text parsed cleanly and the new has ERROR/MISSING
    checked: bool
    message: str  # the problem when not ok; a note when not checked or old already broken
    error_line: int | None  # 1-based line of the first ERROR/MISSING node in the new text


@record
class HunkRefused:
    """One hunk that did not apply: index (1-based), its edit-text line, why."""

    hunk_index: int
    line: int
    reason: str
    message: str
    candidates: tuple[int, ...] = ()  # 1-based lines of the places an ambiguous search matches


@record
class EditApplied:
    """A file section that was applied (whole, or in part under a conflict)."""

    path: str
    hunks: int  # hunks applied
    diff: str
    step_per_hunk: tuple[str, ...] = ()
    syntax: SyntaxVerdict | None = None
    created: bool = False
    deleted: bool = False
    moved_from: str | None = None
    refused: tuple[HunkRefused, ...] = ()
    dry_run: bool = False
    line: int = 0  # the block's line in the edit text
    note: str = ""  # how it was applied, when that needs saying (identical blocks in order)

    ok = True

    @property
    def partial(self) -> bool:
        return bool(self.refused)

    @property
    def message(self) -> str:
        verb = "would apply" if self.dry_run else "applied"
        if self.created:
            what = f"created {self.path}"
        elif self.deleted:
            what = f"deleted {self.path}"
        elif self.moved_from:
            what = f"moved {self.moved_from} to {self.path} ({self.hunks} hunk(s))"
        else:
            what = f"{self.path}: {verb} {self.hunks} hunk(s)"
        if self.dry_run and (self.created or self.deleted or self.moved_from):
            what = "would have " + what
        if not self.diff and not self.deleted:
            what += " (no change: the file already reads like this)"
        if self.syntax is not None and not self.syntax.checked:
            what += " (no syntax check: text mode)"
        if self.note:
            what += f" ({self.note})"
        if self.refused:
            what += "; only in part, because " + "; ".join(h.message for h in self.refused)
        return what


@record
class RefusedEdit:
    """A file section that was not applied; nothing was written."""

    path: str
    reason: str  # path, binary, encoding, too_large, not_found, ambiguous, syntax, conflict, ...
    hunk_index: int | None
    message: str  # model-readable: says what to do differently
    line: int = 0  # the failing hunk's (or the block's) line in the edit text
    syntax: SyntaxVerdict | None = None
    refused: tuple[HunkRefused, ...] = field(default=())

    ok = False


EditOutcome = EditApplied | RefusedEdit


def outcome_to_json(outcome: EditOutcome) -> dict[str, Any]:
    """A JSON-ready dict for `spark apply --json` and logs."""
    data: dict[str, Any] = {
        "type": "edit_applied" if outcome.ok else "edit_refused",
        "path": outcome.path,
        "message": outcome.message,
        "line": outcome.line,
    }
    if isinstance(outcome, EditApplied):
        data.update(
            hunks=outcome.hunks, steps=list(outcome.step_per_hunk), diff=outcome.diff,
            created=outcome.created, deleted=outcome.deleted, moved_from=outcome.moved_from,
            dry_run=outcome.dry_run,
        )
    else:
        data.update(reason=outcome.reason, hunk_index=outcome.hunk_index)
    if outcome.syntax is not None:
        data["syntax"] = {
            "language": outcome.syntax.language, "checked": outcome.syntax.checked,
            "ok": outcome.syntax.ok, "message": outcome.syntax.message,
        }
    if outcome.refused:
        data["refused_hunks"] = [
            {"hunk_index": h.hunk_index, "line": h.line, "reason": h.reason, "message": h.message}
            for h in outcome.refused
        ]
    return data
