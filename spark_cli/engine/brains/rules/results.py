"""What a rules-brain operation comes to: changes to render, or a reason it cannot help."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import field

from spark_cli.engine.brains.base import EditFormat
from spark_cli.engine.brains.code.edit_text import FileChange, render_changes
from spark_cli.record import record


@record
class OpResult:
    """An operation's answer: the lead line, the changes, the summary line (or prose)."""

    lead: str  # the short line before the edits
    summary: str  # the one line after them
    changes: tuple[FileChange, ...] = ()
    prose: tuple[str, ...] = field(default=())  # explain: the answer itself (lines)


class CannotHelp(Exception):
    """The instruction was understood but cannot be carried out here (the reason says why).

    ``show_help`` adds the list of instructions (off when nothing needs doing)."""

    def __init__(self, reason: str, *, show_help: bool = True) -> None:
        super().__init__(reason)
        self.reason = reason
        self.show_help = show_help


def pick_files(files: dict[str, str], named: list[str],
               relevant: Callable[[str, str], bool]) -> list[str]:
    """Which files an operation works on: the ones the prompt names, else the only file,
    else every file for which ``relevant(path, text)`` holds."""
    if not files:
        raise CannotHelp("There are no files in this request, so there is nothing I can edit.")
    if named:
        return named
    if len(files) == 1:
        return list(files)
    return [path for path, text in files.items() if relevant(path, text)]


def plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def render_result(result: OpResult, fmt: EditFormat) -> Iterator[str]:
    """The answer: the lead line, then the prose, or the edits and the summary line."""
    yield result.lead + "\n"
    if result.prose:
        yield from result.prose
        return
    yield "\n"
    yield from render_changes(result.changes, fmt)
    yield "\n"
    yield result.summary + "\n"
