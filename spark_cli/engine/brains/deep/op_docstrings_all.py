"""Document every function (and/or class) of the named files, or of every file.

Each definition gets the docstring the rules brain would give it
(:func:`spark_cli.engine.brains.rules.op_docstring.docstring_at`); one that
has a docstring or a comment above it already, or cannot get one (a one-line
python def), is counted and left alone. All insertions of a file are one
change (splices of the original text), so the hunks stay minimal.
"""

from __future__ import annotations

from spark_cli.engine.brains.code.edit_text import FileChange, Splice
from spark_cli.engine.brains.code.trees import named_definitions, parse
from spark_cli.engine.brains.rules.instruction_parser import Instruction
from spark_cli.engine.brains.rules.op_docstring import docstring_at
from spark_cli.engine.brains.rules.results import CannotHelp, OpResult, pick_files, plural


def document_all(instruction: Instruction, files: dict[str, str], named: list[str],
                 kinds: frozenset[str]) -> OpResult:
    what = " and ".join(sorted(kinds, reverse=True))  # "function and class"
    paths = pick_files(files, named, lambda p, _t: True)
    changes: list[FileChange] = []
    done = kept = 0
    for path in paths:
        parsed = parse(path, files[path])
        if parsed is None:
            continue
        splices = []
        for node, name, kind in named_definitions(parsed):
            if ("class" if kind == "type" else "function") not in kinds:
                continue
            try:
                at, doc = docstring_at(parsed, node, name)
            except CannotHelp:
                kept += 1
                continue
            splices.append(Splice(at, at, doc.encode("utf-8")))
        if splices:
            changes.append(FileChange.spliced(path, files[path], splices))
            done += len(splices)
    where = ", ".join(paths)
    if not changes:
        reason = (f"every one of the {plural(kept, 'definition')} already has one"
                  if kept else f"I found no {what} definitions there")
        raise CannotHelp(f"Nothing to document in {where}: {reason}.", show_help=False)
    note = f"; {kept} already had one (left alone)" if kept else ""
    return OpResult(lead=f"Add a docstring to every {what} in {where}",
                    summary=f"Documented {plural(done, 'definition')} in "
                            f"{plural(len(changes), 'file')}{note}.",
                    changes=tuple(changes))
