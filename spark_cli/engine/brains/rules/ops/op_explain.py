"""Explain a file: a streamed structural summary (imports, definitions and their lines),
no edits; the deep brain's :func:`explain_all` adds how the files connect."""

from __future__ import annotations

from spark_cli.edits.lang.definitions import DefinitionSpan, definitions
from spark_cli.engine.brains.code.trees import Parsed, is_identifier, named_definitions, parse, walk
from spark_cli.engine.brains.rules.instruction_parser import Instruction
from spark_cli.engine.brains.rules.ops.op_imports import IMPORT_TYPES
from spark_cli.engine.brains.rules.results import OpResult, pick_files, plural

MAX_ITEMS = 60
MAX_LINKS = 30
_HEADER_WIDTH = 90


def describe(path: str, text: str) -> list[str]:
    """The summary of one file, one line per item (each ends with a newline)."""
    count = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    parsed = parse(path, text)
    if parsed is None:
        first = [line for line in text.splitlines() if line.strip()][:3]
        out = [f"**{path}** — plain text, {plural(count, 'line')} (no grammar, so no "
               "structure to show).\n"]
        out += [f"    {line[:_HEADER_WIDTH]}\n" for line in first]
        return out
    out = [f"**{path}** — {parsed.language}, {plural(count, 'line')}.\n"]
    imports = [c for c in parsed.tree.root_node.children
               if c.type in IMPORT_TYPES.get(parsed.language, frozenset())]
    if imports:
        out.append(f"Imports ({len(imports)}):\n")
        out += [f"- `{' '.join(parsed.node_text(n).split())[:_HEADER_WIDTH]}` "
                f"(line {n.start_point.row + 1})\n" for n in imports[:MAX_ITEMS]]
    defs = definitions(text, parsed.language)
    if not defs:
        out.append("No functions or classes.\n")
        return out
    out.append(f"Definitions ({len(defs)}):\n")
    stack: list[DefinitionSpan] = []
    for d in defs[:MAX_ITEMS]:
        while stack and not (stack[-1].start <= d.start and d.end <= stack[-1].end):
            stack.pop()
        header = d.header.rstrip(":{ ")
        if len(header) > _HEADER_WIDTH:
            header = header[:_HEADER_WIDTH - 1] + "…"
        lines = f"line {d.start + 1}" if d.start == d.end else f"lines {d.start + 1}-{d.end + 1}"
        out.append(f"{'  ' * len(stack)}- `{header}` ({lines})\n")
        stack.append(d)
    if len(defs) > MAX_ITEMS:
        out.append(f"… and {len(defs) - MAX_ITEMS} more.\n")
    return out


def _outlines(files: dict[str, str], named: list[str]) -> tuple[list[str], list[str]]:
    paths = pick_files(files, named, lambda _p, _t: True)
    prose: list[str] = []
    for path in paths:
        prose.append("\n")
        prose += describe(path, files[path])
    return paths, prose


def explain(instruction: Instruction, files: dict[str, str], named: list[str]) -> OpResult:
    paths, prose = _outlines(files, named)
    prose += ["\n", f"That is the structure of {plural(len(paths), 'file')}; I made no edits.\n"]
    return OpResult(lead=f"Here is an outline of {', '.join(paths)}:", summary="",
                    prose=tuple(prose))


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
    used = {p: {v.data[n.start_byte:n.end_byte] for n in walk(v.tree.root_node)
                if is_identifier(n)} for p, v in parsed.items()}
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
    paths, prose = _outlines(files, named)
    if len(paths) > 1:
        links = connections(files, paths)
        prose += ["\n", "How they connect:\n"]
        prose += links or ["- none of them uses another's top-level definitions.\n"]
    return OpResult(lead=f"Read and outline {', '.join(paths)}.",
                    summary=f"Outlined {plural(len(paths), 'file')}; no edits.",
                    prose=tuple(prose))
