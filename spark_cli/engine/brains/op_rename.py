"""Rename a symbol: every identifier node spelled ``old`` becomes ``new``.

Only identifier leaves of the syntax tree are touched (any node type ending in
``identifier``: ``identifier``, ``property_identifier``, ``type_identifier``,
``field_identifier`` …), so strings and comments keep the old name. Files with
no grammar (text mode) are refused: without a tree an identifier cannot be told
from a word in a string.
"""

from __future__ import annotations

from spark_cli.engine.brains.edit_text import FileChange
from spark_cli.engine.brains.instructions import Instruction
from spark_cli.engine.brains.results import CannotHelp, OpResult, pick_files, plural
from spark_cli.engine.brains.trees import is_identifier, parse, walk


def rename_in(path: str, text: str, old: str, new: str) -> tuple[str, int]:
    """The renamed text and how many identifiers changed (raises CannotHelp in text mode)."""
    parsed = parse(path, text)
    if parsed is None:
        raise CannotHelp(f"{path} has no syntax grammar here, so I cannot tell identifiers "
                         f"from words in strings or comments. Use `replace '{old}' with "
                         f"'{new}' in {path}` for a literal replacement.", show_help=False)
    target = old.encode("utf-8")
    spans = [(n.start_byte, n.end_byte) for n in walk(parsed.tree.root_node)
             if is_identifier(n) and parsed.data[n.start_byte:n.end_byte] == target]
    data = parsed.data
    replacement = new.encode("utf-8")
    for start, end in reversed(spans):
        data = data[:start] + replacement + data[end:]
    return data.decode("utf-8"), len(spans)


def rename(instruction: Instruction, files: dict[str, str], named: list[str]) -> OpResult:
    old, new = instruction.name, instruction.new
    paths = pick_files(files, named, lambda _p, text: old in text)
    changes: list[FileChange] = []
    total = 0
    for path in paths:
        renamed, count = rename_in(path, files[path], old, new)
        if count:
            changes.append(FileChange(path, files[path], renamed))
            total += count
    if not changes:
        where = ", ".join(paths) if paths else "the files in this request"
        raise CannotHelp(f"I found no identifier `{old}` in {where} (strings and comments "
                         "do not count).")
    where = ", ".join(c.path for c in changes)
    return OpResult(lead=f"Renaming `{old}` to `{new}` in {where}.",
                    summary=f"Renamed {plural(total, 'occurrence')} of `{old}` to `{new}` in "
                            f"{plural(len(changes), 'file')}.",
                    changes=tuple(changes))
