"""Blocks an answer sends more than once: identical copies of an ambiguous block apply
together once one has come per place (`identical_copies`); a copy of an applied block
is a no-op (`duplicate`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from spark_cli.edits.model.outcome import EditApplied, EditOutcome, RefusedEdit

if TYPE_CHECKING:
    from spark_cli.edits.model.blocks import FileEdit, Hunk

# (outcome, the file's new text, whether the user had changed the file)
Result = tuple[EditOutcome, str | None, bool]
_Key = tuple[object, ...]


def _key(edit: FileEdit) -> _Key:
    hunks = tuple((h.search, h.replace, h.anchors, h.at_eof) for h in edit.hunks)
    return edit.kind, edit.path, edit.move_to, edit.fmt, hunks


class Repeats:
    __slots__ = ("_applied", "_copies", "superseded")

    def __init__(self) -> None:
        self._copies: dict[tuple[str, str, str], list[tuple[Hunk, int]]] = {}
        self._applied: dict[_Key, int] = {}  # an applied block -> its edit line
        self.superseded: set[int] = set()  # outcome indexes: refusals later made good

    def duplicate(self, edit: FileEdit) -> EditApplied | None:
        """The no-op outcome for a block identical to one already applied, else None."""
        first = self._applied.get(_key(edit))
        if first is None:
            return None
        return EditApplied(edit.path, 0, "", line=edit.line,
                           note=f"identical to the block at edit line {first}, which already "
                           "applied: not applied twice")

    def note(self, edit: FileEdit, outcome: EditOutcome) -> None:
        """Remember a block that changed something (a later identical one is a no-op)."""
        if isinstance(outcome, EditApplied) and not outcome.partial and outcome.diff:
            self._applied.setdefault(_key(edit), edit.line)

    def identical_copies(self, edit: FileEdit, refused: RefusedEdit, index: int,
                         together: Callable[[FileEdit], Result], result: Result) -> Result:
        """An ambiguous block: refused until one identical copy per place came, then applied."""
        if edit.fmt != "search_replace" or edit.kind != "update" or len(edit.hunks) != 1 \
                or not refused.refused:
            return result
        hunk = edit.hunks[0]
        copies = self._copies.setdefault((edit.path, hunk.search, hunk.replace), [])
        copies.append((replace(hunk, line=hunk.line or edit.line), index))
        places = len(refused.refused[0].candidates)
        if len(copies) >= 2 and len(copies) == places:
            outcome, new_text, new_conflicted = together(
                replace(edit, hunks=tuple(h for h, _ in copies)))
            if isinstance(outcome, EditApplied):
                self.superseded.update(k for _, k in copies[:-1])
                lines = ", ".join(str(h.line) for h, _ in copies)
                note = (f"{places} identical blocks (edit lines {lines}), one per place the "
                        "search matches, applied in order; this supersedes the refusal of the "
                        "earlier copies")
                return replace(outcome, note=note), new_text, new_conflicted
            return outcome, new_text, new_conflicted
        if len(copies) == 1:
            hint = (f" If the same change belongs in each place, send one identical block per "
                    f"place ({places} in all): identical blocks are then applied in order, one "
                    "place each.")
        else:
            hint = (f" This is copy {len(copies)} of an identical block; its search matches "
                    f"{places} places, so {places} copies are applied in order, one place each.")
        message = refused.message.rstrip(".") + "." + hint
        return replace(refused, message=message), result[1], result[2]
