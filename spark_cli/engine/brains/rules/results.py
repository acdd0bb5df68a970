"""What a rules-brain operation comes to: changes to render, or a reason it cannot help
(with :func:`help_lines`: the instruction list docs/brains.md agrees with)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from spark_cli.engine.brains.base import EditFormat
from spark_cli.engine.brains.code.edit_text import FileChange, render_changes
from spark_cli.record import record


@record
class OpResult:
    """An operation's answer: the lead line, the changes, the summary line (or prose)."""

    lead: str  # the short line before the edits
    summary: str  # the one line after them
    changes: tuple[FileChange, ...] = ()
    prose: tuple[str, ...] = ()  # explain: the answer itself (lines)


class CannotHelp(Exception):
    """Understood, but it cannot be done here; ``show_help`` adds the instruction list."""

    def __init__(self, reason: str, *, show_help: bool = True) -> None:
        super().__init__(reason)
        self.reason = reason
        self.show_help = show_help


def pick_files(files: dict[str, str], named: list[str],
               relevant: Callable[[str, str], bool]) -> list[str]:
    """The files the prompt names, else the only file, else the relevant ones."""
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


INSTRUCTIONS: tuple[tuple[str, str], ...] = (
    ("rename foo to bar", "rename a symbol (identifiers only, not strings or comments)"),
    ("replace 'a' with 'b' [in foo.py]", "replace quoted text literally"),
    ("remove print calls / remove console.log", "delete print / console.log statements"),
    ("add import os [to foo.py]", "add an import after the existing ones"),
    ("add a docstring to foo", "document a function or class"),
    ("delete the function foo / remove foo", "delete a function or class"),
    ("add a parameter x[=1] to foo", "add a parameter (python, js/ts, go, rust)"),
    ("explain foo.py", "a structural summary: imports, definitions and their lines"),
    ("run the tests / run `make lint`", "run it (spark --commands ask|sandbox), say how it went"),
    ("run the tests and fix what fails", "fix names a rename left stale, run them again"),
)

PROVIDERS = (
    "For anything else, connect a real model: `--provider openai` (with OPENAI_API_KEY), "
    "`--provider cerebras` (CEREBRAS_API_KEY) or `--provider openai-compatible --base-url URL` "
    "(SPARK_API_KEY), e.g. `spark edit app.py -m \"...\" --provider openai`; "
    "see docs/providers.md."
)


def help_lines(reason: str, *, who: str = "rules brain",
               extra: tuple[tuple[str, str], ...] = ()) -> list[str]:
    """The explanation lines (``extra``: a brain's own instructions, listed first)."""
    lines = [reason.rstrip() + "\n", "\n",
             f"The bundled engine ({who}) understands these instructions, over the "
             "files included in the request:\n"]
    known = extra + INSTRUCTIONS
    width = max(len(example) for example, _ in known)
    lines += [f"- `{example}`{' ' * (width - len(example))}  {what}\n"
              for example, what in known]
    lines += ["\n", "Name the file in the instruction (`in app.py`) when several files are "
              "included.\n", PROVIDERS + "\n"]
    return lines
