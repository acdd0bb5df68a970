"""Rename across the whole request: every file that uses the symbol, whatever the prompt names.

A thorough rename does not stop at the file the user named: the callers and
importers in the other files would break. So the rules brain's rename
(:func:`spark_cli.engine.brains.rules.op_rename.rename`: identifiers only,
other objects' members left alone) runs over every file of the request that
has a grammar; files without one that mention the name (a README, a config)
are listed in the summary, not edited.
"""

from __future__ import annotations

import dataclasses

from spark_cli.engine.brains.code.trees import parse
from spark_cli.engine.brains.rules.instruction_parser import Instruction
from spark_cli.engine.brains.rules.op_rename import rename
from spark_cli.engine.brains.rules.results import CannotHelp, OpResult, pick_files


def rename_everywhere(instruction: Instruction, files: dict[str, str],
                      named: list[str]) -> OpResult:
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
