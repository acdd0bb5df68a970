"""Explain several files the way a thorough reader would: each file's outline (the rules
brain's :func:`describe`), then how the files connect.

A connection is a top-level definition of one file whose name appears as an
identifier in another file (one walk per file collects its identifiers, so the
cost is linear in the files' size). At most :data:`MAX_LINKS` are listed.
"""

from __future__ import annotations

from spark_cli.engine.brains.code.trees import Parsed, is_identifier, named_definitions, parse, walk
from spark_cli.engine.brains.rules.instruction_parser import Instruction
from spark_cli.engine.brains.rules.op_explain import describe
from spark_cli.engine.brains.rules.results import OpResult, pick_files, plural

MAX_LINKS = 30


def _identifiers(parsed: Parsed) -> set[bytes]:
    return {parsed.data[n.start_byte:n.end_byte] for n in walk(parsed.tree.root_node)
            if is_identifier(n)}


def _top_level(parsed: Parsed) -> list[str]:
    """Names of the definitions not nested in another definition."""
    found = named_definitions(parsed)
    ids = {node.id for node, _, _ in found}
    names = []
    for node, name, _ in found:
        parent = node.parent
        while parent is not None and parent.id not in ids:
            parent = parent.parent
        if parent is None:
            names.append(name)
    return list(dict.fromkeys(names))


def connections(files: dict[str, str], paths: list[str]) -> list[str]:
    """Lines ``- `load` (util.py) is used in app.py, cli.py`` for the files ``paths``."""
    parsed = {p: v for p in paths if (v := parse(p, files[p])) is not None}
    used = {p: _identifiers(v) for p, v in parsed.items()}
    lines = []
    for path, tree in parsed.items():
        for name in _top_level(tree):
            key = name.encode("utf-8")
            users = [other for other in parsed if other != path and key in used[other]]
            if users:
                lines.append(f"- `{name}` ({path}) is used in {', '.join(users)}\n")
    if len(lines) > MAX_LINKS:
        lines = [*lines[:MAX_LINKS], f"… and {len(lines) - MAX_LINKS} more.\n"]
    return lines


def explain_all(instruction: Instruction, files: dict[str, str], named: list[str]) -> OpResult:
    paths = pick_files(files, named, lambda _p, _t: True)
    prose: list[str] = []
    for path in paths:
        prose.append("\n")
        prose += describe(path, files[path])
    if len(paths) > 1:
        links = connections(files, paths)
        prose += ["\n", "How they connect:\n"]
        prose += links or ["- none of them uses another's top-level definitions.\n"]
    return OpResult(lead=f"Read and outline {', '.join(paths)}.",
                    summary=f"Outlined {plural(len(paths), 'file')}; no edits.",
                    prose=tuple(prose))
