"""Replace text: a quoted literal becomes another, everywhere in the target files.

Plain text, no syntax tree: every occurrence is replaced (strings and comments
included), in the file the prompt names, else the only file, else every file
that contains it.
"""

from __future__ import annotations

from spark_cli.engine.brains.edit_text import FileChange
from spark_cli.engine.brains.instructions import Instruction
from spark_cli.engine.brains.results import CannotHelp, OpResult, pick_files, plural


def replace_text(instruction: Instruction, files: dict[str, str], named: list[str]) -> OpResult:
    old, new = instruction.old, instruction.new
    paths = pick_files(files, named, lambda _p, text: old in text)
    changes = [FileChange(p, files[p], files[p].replace(old, new)) for p in paths
               if old in files[p]]
    if not changes:
        where = ", ".join(paths) if paths else "the files in this request"
        raise CannotHelp(f"The text {old!r} does not occur in {where}.", show_help=False)
    total = sum(files[c.path].count(old) for c in changes)
    return OpResult(lead=f"Replacing {old!r} with {new!r}.",
                    summary=f"Replaced {plural(total, 'occurrence')} in "
                            f"{plural(len(changes), 'file')}.",
                    changes=tuple(changes))
