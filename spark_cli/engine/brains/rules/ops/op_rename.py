"""Rename a symbol: only the identifier leaves that are the symbol (:mod:`rename_refs`), so
strings and comments keep the old name; files with no grammar are refused. Or replace a
quoted literal with another, every occurrence, in the target files."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from spark_cli.engine.brains.code.edit_text import FileChange, Splice
from spark_cli.engine.brains.code.trees import Parsed, named_leaves, parse
from spark_cli.engine.brains.rules.instruction_parser import Instruction
from spark_cli.engine.brains.rules.rename_refs import FileRefs, Symbol
from spark_cli.engine.brains.rules.results import CannotHelp, OpResult, pick_files, plural

if TYPE_CHECKING:
    import tree_sitter

_EXAMPLES = 3


@dataclass(slots=True)
class _Renamed:
    """What a rename did, as it goes."""

    changes: list[FileChange] = field(default_factory=list)
    total: int = 0
    kept: list[str] = field(default_factory=list)
    """Uses left alone (another object's member or keyword), as ``json.load``."""
    foreign: list[str] = field(default_factory=list)
    """Files that import the name from a module outside the request."""


def _parsed(path: str, text: str, old: str, new: str) -> Parsed:
    parsed = parse(path, text)
    if parsed is None:
        raise CannotHelp(f"{path} has no syntax grammar here, so I cannot tell identifiers "
                         f"from words in strings or comments. Use `replace '{old}' with "
                         f"'{new}' in {path}` for a literal replacement.", show_help=False)
    return parsed


def _use(parsed: Parsed, node: tree_sitter.Node) -> str:
    """How a use left alone reads: ``json.load``, ``dict(load=1)``."""
    owner = node.parent
    if owner is not None and owner.type == "keyword_argument":
        call = owner.parent.parent if owner.parent is not None else None
        owner = call or owner
    text = " ".join(parsed.node_text(owner or node).split())
    return text if len(text) <= 40 else text[:39] + "…"


def _rename_file(refs: FileRefs, new: str, out: _Renamed) -> None:
    parsed = refs.parsed
    replacement = new.encode("utf-8")
    splices: list[Splice] = []
    for node in named_leaves(parsed, refs.symbol.old):
        if refs.refers(node):
            splices.append(Splice(node.start_byte, node.end_byte, replacement))
        else:
            out.kept.append(_use(parsed, node))
    if splices:
        out.changes.append(FileChange.spliced(parsed.path, parsed.text, splices))
        out.total += len(splices)


def rename(instruction: Instruction, files: dict[str, str], named: list[str]) -> OpResult:
    old, new = instruction.name, instruction.new
    paths = pick_files(files, named, lambda _p, text: old in text)
    parsed = {path: _parsed(path, files[path], old, new) for path in paths}
    every = {p: parse(p, t) for p, t in files.items() if p not in parsed}
    symbol = Symbol(old, {**parsed, **{p: v for p, v in every.items() if v is not None}})
    out = _Renamed()
    for path in paths:
        refs = FileRefs(parsed[path], symbol)
        if refs.foreign is not None:
            out.foreign.append(f"{path} (its `{old}` comes from {refs.foreign})")
            continue
        _rename_file(refs, new, out)
    if not out.changes:
        where = ", ".join(paths) if paths else "the files in this request"
        why = f"; left alone: {', '.join(out.foreign)}" if out.foreign else ""
        if out.kept:
            uses = ", ".join(f"`{k}`" for k in list(dict.fromkeys(out.kept))[:_EXAMPLES])
            why += f"; {uses} belong to other objects"
        raise CannotHelp(f"I found no identifier `{old}` in {where} (strings and comments "
                         f"do not count){why}.")
    where = ", ".join(c.path for c in out.changes)
    notes = ""
    if out.kept:
        examples = ", ".join(f"`{k}`" for k in list(dict.fromkeys(out.kept))[:_EXAMPLES])
        notes += (f"; left {plural(len(out.kept), 'use')} of other objects' `{old}` "
                  f"alone ({examples})")
    if out.foreign:
        notes += f"; left alone: {', '.join(out.foreign)}"
    return OpResult(lead=f"Renaming `{old}` to `{new}` in {where}.",
                    summary=f"Renamed {plural(out.total, 'occurrence')} of `{old}` to `{new}` in "
                            f"{plural(len(out.changes), 'file')}{notes}.",
                    changes=tuple(out.changes))


def rename_everywhere(instruction: Instruction, files: dict[str, str],
                      named: list[str]) -> OpResult:
    """The rename over every file with a grammar; others that mention it are only listed."""
    old = instruction.name
    pick_files(files, [], lambda _p, _t: True)  # no files: the usual reason
    code = {path: text for path, text in files.items() if parse(path, text) is not None}
    texts = [path for path, text in files.items() if path not in code and old in text]
    if not code:
        return rename(instruction, files, named)  # the rules brain's own explanation
    result = rename(instruction, code, [])
    note = ""
    if texts:
        note = (f" {', '.join(texts)} also mention `{old}` but have no grammar, so I left "
                f"them alone (say `replace '{old}' with '{instruction.new}'` to change them).")
    if not result.changes:
        raise CannotHelp(result.summary + note)
    return dataclasses.replace(result, summary=result.summary + note)


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
