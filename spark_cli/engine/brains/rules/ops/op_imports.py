"""Add an import in the file's language and style, after its top-level imports (with none,
at the top after what must stay first); one already there is reported, not repeated."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from spark_cli.engine.brains.code.edit_text import FileChange
from spark_cli.engine.brains.code.trees import COMMENTS, Parsed, parse
from spark_cli.engine.brains.rules.instruction_parser import Instruction
from spark_cli.engine.brains.rules.results import CannotHelp, OpResult, pick_files

IMPORT_TYPES: dict[str, frozenset[str]] = {
    "python": frozenset({"import_statement", "import_from_statement", "future_import_statement"}),
    "javascript": frozenset({"import_statement"}),
    "go": frozenset({"import_declaration"}),
    "rust": frozenset({"use_declaration", "extern_crate_declaration"}),
    "java": frozenset({"import_declaration"}),
}
IMPORT_TYPES["typescript"] = IMPORT_TYPES["tsx"] = IMPORT_TYPES["javascript"]
if TYPE_CHECKING:
    import tree_sitter

_REQUIRE = re.compile(r"^\s*(?:const|let|var)\s+[\w{}\s,]+=\s*require\(")
_WS = re.compile(r"\s+")
_NOT_IDENT = re.compile(r"[^\w$]")


def _js_name(module: str) -> str:
    base = module.removeprefix("node:").rstrip("/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
    parts = [p for p in re.split(r"[-_.]", base) if p]
    name = (parts[0] + "".join(p.capitalize() for p in parts[1:])) if parts else "module"
    name = _NOT_IDENT.sub("", name)
    return name if name and not name[0].isdigit() else "_" + name


def _statement(parsed: Parsed, spec: str, last: str, requires: bool) -> str:
    spec = spec.strip().rstrip(";")
    lang = parsed.language
    if lang == "python":
        return spec if spec.startswith(("import ", "from ")) else f"import {spec}"
    if lang in ("javascript", "typescript", "tsx"):
        semi = ";" if (not last or last.rstrip().endswith(";")) else ""
        if spec.startswith(("import ", "const ", "let ", "var ")):
            return spec + semi
        quote = "'" if "'" in last and '"' not in last else '"'
        module = spec.strip("'\"")
        name = _js_name(module)
        if requires:
            return f"const {name} = require({quote}{module}{quote}){semi}"
        return f"import {name} from {quote}{module}{quote}{semi}"
    if lang == "go":
        return '"' + spec.removeprefix("import").strip().strip('"') + '"'
    if lang == "rust":
        return f"use {spec.removeprefix('use').strip()};"
    return f"import {spec.removeprefix('import').strip()};"  # java


def _is_preamble(parsed: Parsed, child: tree_sitter.Node, first: bool) -> bool:
    """Must a first import go after ``child`` (package, docstring, future, shebang)?"""
    if child.type in ("package_clause", "package_declaration"):
        return True
    if parsed.language != "python":
        return False
    if child.type == "future_import_statement":
        return True
    if child.type == "comment":
        return first and parsed.node_text(child).startswith("#!")
    return (first and child.type == "expression_statement" and child.named_child_count == 1
            and child.named_children[0].type == "string")


def _top_insert(parsed: Parsed) -> int:
    """Byte offset for the first import of a file that has none."""
    offset = 0
    for child in parsed.tree.root_node.children:
        if _is_preamble(parsed, child, child.start_byte <= offset + 1 or offset == 0):
            offset = parsed.line_end(child.end_byte - 1)
        elif child.type not in COMMENTS:
            break
    return offset


def _imports(parsed: Parsed) -> tuple[list[tree_sitter.Node], bool]:
    """The top-level imports, and whether they are js ``require`` lines."""
    types = IMPORT_TYPES[parsed.language]
    imports = [c for c in parsed.tree.root_node.children if c.type in types]
    if imports or parsed.language not in ("javascript", "typescript", "tsx"):
        return imports, False
    requires = [c for c in parsed.tree.root_node.children
                if c.type in ("lexical_declaration", "variable_declaration")
                and _REQUIRE.match(parsed.node_text(c))]
    return requires, bool(requires)


def _insert_top(parsed: Parsed, line: str) -> bytes:
    """The file with ``line`` as its first import, set off by blank lines."""
    data = parsed.data
    at = _top_insert(parsed)
    before, after = data[:at], data[at:]
    lead = b"\n" if before.strip() and not before.endswith(b"\n\n") else b""
    gap = b"\n" if after.strip() and not after.startswith(b"\n") else b""
    return before + lead + (line + "\n").encode() + gap + after


def add_import_in(path: str, text: str, spec: str) -> tuple[str, str]:
    """(new text, the import line); new text == text when it is already there."""
    parsed = parse(path, text)
    if parsed is None or parsed.language not in IMPORT_TYPES:
        raise CannotHelp(f"I can add imports to python, js/ts, go, rust and java files, "
                         f"not to {path}.", show_help=False)
    imports, requires = _imports(parsed)
    last = parsed.node_text(imports[-1]) if imports else ""
    line = _statement(parsed, spec, last, requires)
    flat = _WS.sub(" ", line).strip()  # already there? (go: inside an import block too)
    existing = {_WS.sub(" ", parsed.node_text(n)).strip() for n in imports}
    if flat in existing or any(flat in e for e in existing if parsed.language == "go"):
        return text, line
    data = parsed.data
    if parsed.language == "go":
        block = next((n for n in imports if "(" in parsed.node_text(n)), None)
        if block is not None:
            at = parsed.line_start(block.end_byte - 1)  # the line of its ")"
            return (data[:at] + f"\t{line}\n".encode() + data[at:]).decode(), line
        line = f"import {line}"
    if imports:
        at = parsed.line_end(imports[-1].end_byte - 1)
        return (data[:at] + (line + "\n").encode() + data[at:]).decode(), line
    return _insert_top(parsed, line).decode(), line


def add_import(instruction: Instruction, files: dict[str, str], named: list[str]) -> OpResult:
    paths = pick_files(files, named, lambda p, _t: parse(p, "") is not None)
    if len(paths) != 1:
        raise CannotHelp("Which file should get the import? Name it, e.g. "
                         f"`add import {instruction.what} to {next(iter(files), 'app.py')}`.")
    path = paths[0]
    new, line = add_import_in(path, files[path], instruction.what)
    if new == files[path]:
        raise CannotHelp(f"{path} already has `{line}`; nothing to change.", show_help=False)
    return OpResult(lead=f"Adding `{line.strip()}` to {path}.",
                    summary=f"Added 1 import to {path}.",
                    changes=(FileChange(path, files[path], new),))
