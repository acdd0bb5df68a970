"""Looking before editing: the read-only tool calls the rules brain makes first."""

from __future__ import annotations

import re
from collections.abc import Iterator

from spark_cli.engine.brains.base import BrainCall, BrainRequest
from spark_cli.engine.brains.code.lookups import (
    LIST_FILES,
    READ_FILE,
    SEARCH,
    Lookups,
    ReadWindows,
    call,
    can_look,
    clean_path,
    lookups,
)
from spark_cli.engine.brains.code.trees import find_definitions, parse
from spark_cli.engine.brains.rules.instruction_parser import (
    PATH_RUN,
    Instruction,
    mentioned_paths,
)
from spark_cli.engine.brains.rules.results import plural
from spark_cli.record import record

_SYMBOL_KINDS = frozenset({"rename", "docstring", "delete", "add_parameter"})
_PRINTS = (r"\bprint\(|console\.(log|debug|info)\(|fmt\.Print|\bprintln!?\(|\beprintln!\(|"
           r"\bdbg!\(|System\.(out|err)\.print")
_EXTENSION = re.compile(r"\.[A-Za-z]\w{0,9}")
"""A file name's extension (matched at the end of a run's last segment)."""


@record
class Look:
    """What to say, then the calls to make."""

    preamble: str
    calls: tuple[BrainCall, ...]

    def answer(self, request: BrainRequest) -> Iterator[str | BrainCall]:
        """The preamble and the calls (only the first without ``parallel_tool_calls``)."""
        yield self.preamble
        yield from self.calls if request.parallel_tool_calls else self.calls[:1]


def looking(request: BrainRequest) -> Lookups | None:
    """This turn's lookups when the brain may look (again), else None."""
    if not can_look(request):
        return None
    seen = lookups(request)
    return None if seen.exhausted else seen


def rest_of(reads: ReadWindows) -> Look | None:
    """Read the rest of the files read in part so far, if any."""
    missing = reads.missing()
    if not missing:
        return None
    return Look("I'll read the rest of " + ", ".join(missing) + ".\n",
                tuple(call(READ_FILE, path=p, start_line=n) for p, n in missing.items()))


def needle(instruction: Instruction) -> tuple[str, str] | None:
    """``(regex, how to say it)`` for what the instruction is about, if anything."""
    if instruction.kind in _SYMBOL_KINDS and instruction.name not in ("", "*"):
        return rf"\b{re.escape(instruction.name)}\b", f"`{instruction.name}`"
    if instruction.kind == "replace" and instruction.old:
        return re.escape(instruction.old), repr(instruction.old)
    if instruction.kind == "remove_prints":
        return _PRINTS, "debug print calls"
    return None


def named_files(text: str, files: dict[str, str]) -> list[str]:
    """File names the instruction spells that match no file it has."""
    out: list[str] = []
    for run in PATH_RUN.findall(text):
        token = run.rstrip(".")
        last = token.rsplit("/", 1)[-1]
        dot = last.rfind(".")
        if dot <= 0 or not _EXTENSION.fullmatch(last[dot:]):
            continue
        name = clean_path(token.lstrip("./"))
        if name and name not in out and not any(p == name or p.endswith("/" + name)
                                               for p in files):
            out.append(name)
    return out


def defined_in(files: dict[str, str], name: str) -> bool:
    """Whether a file it has defines ``name`` (a function, class, method ...)."""
    word = re.compile(rf"\b{re.escape(name)}\b")
    for path, text in files.items():
        if word.search(text) is None:
            continue
        parsed = parse(path, text)
        if parsed is not None and find_definitions(parsed, name):
            return True
    return False


def _for_names(names: list[str], seen: Lookups) -> tuple[list[BrainCall], str]:
    calls: list[BrainCall] = []
    for name in names:
        if "/" in name and not seen.asked_to_read(name):
            calls.append(call(READ_FILE, path=name))
            continue
        listings = [listing for lookup, listing in seen.listings() if not lookup.path]
        if not seen.listed("") and not listings:
            return [call(LIST_FILES)], f"I'll list the repo's files to find {name}.\n"
        for listing in listings:
            calls += [call(READ_FILE, path=p) for p in listing.paths
                      if (p == name or p.endswith("/" + name)) and not seen.asked_to_read(p)]
    return calls, "I'll read " + ", ".join(names) + " first.\n"


def _for_needle(found: tuple[str, str], files: dict[str, str], seen: Lookups, *,
                always: bool) -> tuple[list[BrainCall], str]:
    pattern, shown = found
    if not seen.searched(pattern):
        compiled = re.compile(pattern)
        if not always and any(compiled.search(text) for text in files.values()):
            return [], ""
        return [call(SEARCH, pattern=pattern)], f"I'll search the repo for {shown} first.\n"
    hits: list[str] = []
    for lookup, listing in seen.searches():
        if lookup.arguments.get("pattern") == pattern:
            hits += [p for p in listing.paths if p not in hits]
    unread = [p for p in hits if p not in files and not seen.asked_to_read(p)]
    if len(unread) == 1:
        preamble = f"I'll read {unread[0]}, which mentions {shown}.\n"
    else:
        preamble = f"I'll read the {len(unread)} files that mention {shown}.\n"
    return [call(READ_FILE, path=p) for p in unread], preamble


def look_first(request: BrainRequest, instruction: Instruction, text: str,
               files: dict[str, str], reads: ReadWindows) -> Look | None:
    """The calls to make before answering, or None: answer now. A round at a time it looks
    for the rest of a file read in part, then a named file it lacks, then what the
    instruction is about when no file it has contains it (docs/brains.md)."""
    if (seen := looking(request)) is None:
        return None
    if (rest := rest_of(reads)) is not None:
        return rest
    calls, preamble = _for_names(named_files(text, files), seen)
    if not calls and (found := needle(instruction)) is not None:
        everywhere = (instruction.kind == "rename" and not named_files(text, files)
                      and not mentioned_paths(text, list(files))
                      and not defined_in(files, instruction.name))
        calls, preamble = _for_needle(found, files, seen, always=everywhere)
    return Look(preamble, tuple(calls)) if calls else None


def notes(request: BrainRequest) -> list[str]:
    """Lines on what this turn's lookups could not find or read."""
    if not can_look(request):
        return []
    seen = lookups(request)
    out = []
    for lookup, listing in seen.searches():
        if listing.error:
            out.append(f"The search for `{lookup.arguments.get('pattern')}` failed: "
                       f"{listing.error}\n")
        elif not listing.paths:
            out.append(f"I searched the repo for `{lookup.arguments.get('pattern')}`: "
                       "no matches.\n")
    for path, error in seen.read_errors():
        out.append(f"I could not read {path}: {error}\n")
    if seen.exhausted:
        out.append(f"I stopped looking after {plural(seen.rounds, 'round')} of tool calls.\n")
    return out
