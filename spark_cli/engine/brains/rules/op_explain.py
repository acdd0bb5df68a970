"""Explain a file: a streamed structural summary (imports, definitions and their lines).

No edits. Definitions come from :func:`spark_cli.edits.lang.definitions.definitions`
(the same ones ``@@ def f`` anchors resolve to), nested by their line ranges;
imports are the file's top-level import statements. A file with no grammar
gets its size and first lines only.
"""

from __future__ import annotations

from spark_cli.edits.lang.definitions import DefinitionSpan, definitions
from spark_cli.engine.brains.code.trees import parse
from spark_cli.engine.brains.rules.instruction_parser import Instruction
from spark_cli.engine.brains.rules.op_imports import IMPORT_TYPES
from spark_cli.engine.brains.rules.results import OpResult, pick_files, plural

MAX_ITEMS = 60
_HEADER_WIDTH = 90


def _lines_label(d: DefinitionSpan) -> str:
    return f"line {d.start + 1}" if d.start == d.end else f"lines {d.start + 1}-{d.end + 1}"


def _header(d: DefinitionSpan) -> str:
    text = d.header.rstrip(":{ ")
    return text if len(text) <= _HEADER_WIDTH else text[:_HEADER_WIDTH - 1] + "…"


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
        out.append(f"{'  ' * len(stack)}- `{_header(d)}` ({_lines_label(d)})\n")
        stack.append(d)
    if len(defs) > MAX_ITEMS:
        out.append(f"… and {len(defs) - MAX_ITEMS} more.\n")
    return out


def explain(instruction: Instruction, files: dict[str, str], named: list[str]) -> OpResult:
    paths = pick_files(files, named, lambda _p, _t: True)
    prose: list[str] = []
    for path in paths:
        prose.append("\n")
        prose += describe(path, files[path])
    prose += ["\n", f"That is the structure of {plural(len(paths), 'file')}; I made no edits.\n"]
    return OpResult(lead=f"Here is an outline of {', '.join(paths)}:", summary="",
                    prose=tuple(prose))
