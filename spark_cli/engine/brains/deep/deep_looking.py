"""How the deep brain finds the files a task reaches, with spark's read-only tools."""

from __future__ import annotations

from spark_cli.edits.lang.grammars import language_for_path
from spark_cli.engine.brains.base import BrainCall, BrainRequest
from spark_cli.engine.brains.code.lookups import (
    LIST_FILES,
    READ_FILE,
    SEARCH,
    Lookups,
    ReadWindows,
    call,
    clean_path,
)
from spark_cli.engine.brains.deep.steps import Step
from spark_cli.engine.brains.rules.instruction_parser import PATH_RUN
from spark_cli.engine.brains.rules.looking import Look, looking, named_files, needle, rest_of

MAX_READS = 24
"""Files the deep brain reads in one turn at most."""
_WHOLE_REPO_KINDS = frozenset({"explain"})


def folders_named(text: str) -> list[str]:
    """The folders a task names: slash-separated words without an extension."""
    out: list[str] = []
    for run in PATH_RUN.findall(text):
        token = run.rstrip(".")
        if "/" not in token or "." in token or not token.strip("/"):
            continue
        if clean_path(token) not in out:
            out.append(clean_path(token))
    return out


def in_folders(text: str, files: dict[str, str]) -> list[str]:
    """The files under the folders ``text`` names (a step's scope), in their order."""
    folders = folders_named(text)
    return [p for p in files if any(p.startswith(f + "/") for f in folders)]


def _survey(steps: list[Step], text: str, files: dict[str, str],
            seen: Lookups) -> list[BrainCall]:
    folders = folders_named(text)
    calls = [call(LIST_FILES, path=f) for f in folders if not seen.listed(f)]
    every = any(s.instruction is not None and (
        (s.instruction.kind == "docstring" and s.instruction.name == "*")
        or s.instruction.kind in _WHOLE_REPO_KINDS) for s in steps)
    if not folders and not files and every and not seen.listed(""):
        calls.append(call(LIST_FILES))
    scope = folders[0] if len(folders) == 1 else None
    for step in steps:
        if step.instruction is None or step.instruction.kind == "remove_prints":
            continue
        found = needle(step.instruction)
        if found is not None and not seen.searched(found[0]):
            calls.append(call(SEARCH, pattern=found[0], path=scope))
    calls += [call(READ_FILE, path=name) for name in named_files(text, files)
              if "/" in name and not seen.asked_to_read(name)]
    return calls


def _to_read(files: dict[str, str], seen: Lookups, names: list[str]) -> list[str]:
    found: list[str] = []
    for _, listing in [*seen.listings(), *seen.searches()]:
        found += [p for p in listing.paths if p not in found]
    wanted = [p for p in found if language_for_path(p) is not None
              or any(p == n or p.endswith("/" + n) for n in names)]
    return [p for p in wanted if p not in files and not seen.asked_to_read(p)][:MAX_READS]


def look_around(request: BrainRequest, steps: list[Step], text: str, files: dict[str, str],
                reads: ReadWindows) -> Look | None:
    """The deep brain's next calls, or None: plan now. It surveys what the task reaches,
    reads every source file that turned up, then the rest of any file got in part."""
    if (seen := looking(request)) is None:
        return None
    if (rest := rest_of(reads)) is not None:
        return rest
    calls = _survey(steps, text, files, seen)
    if calls:
        return Look("Before I plan, I'll look at what this task reaches in the repo.\n",
                    tuple(calls))
    paths = _to_read(files, seen, named_files(text, files))
    if not paths:
        return None
    return Look(f"I'll read {len(paths)} file{'s' * (len(paths) != 1)}: " + ", ".join(paths)
                + ".\n", tuple(call(READ_FILE, path=p) for p in paths))
