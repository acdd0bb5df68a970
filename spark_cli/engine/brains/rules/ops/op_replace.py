"""Replace text: a quoted literal becomes another, every occurrence, in the target files."""

from __future__ import annotations

from spark_cli.engine.brains.code.edit_text import FileChange, Splice
from spark_cli.engine.brains.rules.instruction_parser import Instruction
from spark_cli.engine.brains.rules.results import CannotHelp, OpResult, pick_files, plural


def _occurrences(text: str, old: str, new: str) -> list[Splice]:
    """One splice per non-overlapping occurrence, left to right (as ``str.replace``)."""
    data, find, replacement = text.encode("utf-8"), old.encode("utf-8"), new.encode("utf-8")
    splices: list[Splice] = []
    at = data.find(find)
    while at >= 0:
        splices.append(Splice(at, at + len(find), replacement))
        at = data.find(find, at + len(find))
    return splices


def replace_text(instruction: Instruction, files: dict[str, str], named: list[str]) -> OpResult:
    old, new = instruction.old, instruction.new
    paths = pick_files(files, named, lambda _p, text: old in text)
    changes: list[FileChange] = []
    total = 0
    for path in paths:
        splices = _occurrences(files[path], old, new)
        if splices:
            changes.append(FileChange.spliced(path, files[path], splices))
            total += len(splices)
    if not changes:
        where = ", ".join(paths) if paths else "the files in this request"
        raise CannotHelp(f"The text {old!r} does not occur in {where}.", show_help=False)
    return OpResult(lead=f"Replacing {old!r} with {new!r}.",
                    summary=f"Replaced {plural(total, 'occurrence')} in "
                            f"{plural(len(changes), 'file')}.",
                    changes=tuple(changes))
