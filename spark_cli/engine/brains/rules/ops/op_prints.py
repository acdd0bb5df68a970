"""Remove debug output: statements that are only a call to a print function, each with its
lines when alone on them; an emptied block is kept valid (``pass``, ``{}``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from spark_cli.engine.brains.code.edit_text import FileChange, Splice
from spark_cli.engine.brains.code.trees import Parsed, parse, walk
from spark_cli.engine.brains.rules.instruction_parser import Instruction
from spark_cli.engine.brains.rules.results import CannotHelp, OpResult, pick_files, plural

if TYPE_CHECKING:
    import tree_sitter

_JS = ("javascript", "typescript", "tsx")
_JS_ALL = frozenset({"console.log", "console.debug", "console.info"})
_CALLEES: dict[str, frozenset[str]] = {
    "python": frozenset({"print"}),
    **dict.fromkeys(_JS, _JS_ALL),
    "go": frozenset({"fmt.Println", "fmt.Printf", "fmt.Print", "println", "print"}),
    "rust": frozenset({"println", "print", "eprintln", "eprint", "dbg"}),
    "java": frozenset({"System.out.println", "System.out.print", "System.out.printf",
                       "System.err.println", "System.err.print"}),
}
_CALLS = frozenset({"call", "call_expression", "macro_invocation", "method_invocation"})
_BLOCKS = frozenset({"block", "statement_block", "program", "module", "switch_case",
                     "switch_default", "class_body", "expression_case", "default_case",
                     "source_file", "declaration_list", "constructor_body",
                     "switch_block_statement_group", "statement_list"})
_FMT_USE = re.compile(r"\bfmt\.")


def _callee(parsed: Parsed, call: tree_sitter.Node) -> str:
    if call.type == "macro_invocation":
        macro = call.child_by_field_name("macro")
        return parsed.node_text(macro) if macro is not None else ""
    if call.type == "method_invocation":
        obj = call.child_by_field_name("object")
        name = call.child_by_field_name("name")
        prefix = parsed.node_text(obj) + "." if obj is not None else ""
        return prefix + (parsed.node_text(name) if name is not None else "")
    function = call.child_by_field_name("function")
    return "".join(parsed.node_text(function).split()) if function is not None else ""


def _is_debug(parsed: Parsed, statement: tree_sitter.Node, callees: frozenset[str]) -> bool:
    if statement.type != "expression_statement":
        return False
    calls = [c for c in statement.named_children if c.type != "comment"]
    return (len(calls) == 1 and calls[0].type in _CALLS
            and _callee(parsed, calls[0]) in callees)


def _alone(parsed: Parsed, node: tree_sitter.Node) -> bool:
    """Nothing but whitespace (and a trailing comment) shares the node's lines."""
    before = parsed.data[parsed.line_start(node.start_byte):node.start_byte]
    after = parsed.data[node.end_byte:parsed.line_end(node.end_byte)].strip()
    comment = b"#" if parsed.language == "python" else b"//"
    return not before.strip() and (not after or after.startswith(comment))


def _cut(parsed: Parsed, node: tree_sitter.Node, removed: set[int],
         filled: set[int]) -> tuple[int, int, bytes]:
    """One statement's cut (its lines when alone on them) and the filler its block needs."""
    parent = node.parent
    if parent is not None and parent.type not in _BLOCKS and parsed.language != "python":
        return node.start_byte, node.end_byte, b"{}"  # the body of a brace-less if/for/while
    alone = _alone(parsed, node)
    start, end = ((parsed.line_start(node.start_byte), parsed.line_end(node.end_byte))
                  if alone else (node.start_byte, node.end_byte))
    filler = _python_pass(parsed, node, alone, removed, filled)
    if not alone and not filler:
        end = _past_semicolon(parsed, end)
    return start, end, filler


def _python_pass(parsed: Parsed, node: tree_sitter.Node, alone: bool, removed: set[int],
                 filled: set[int]) -> bytes:
    """``pass`` for a python block all of whose statements go (once per block)."""
    parent = node.parent
    if parsed.language != "python" or parent is None or parent.id in filled:
        return b""
    siblings = [c for c in parent.named_children if c.type != "comment"]
    if parent.type != "block" or not all(c.id in removed for c in siblings):
        return b""
    filled.add(parent.id)
    return (parsed.indent_at(node.start_byte) + "pass\n").encode() if alone else b"pass"


def _past_semicolon(parsed: Parsed, end: int) -> int:
    """``end`` moved past a ``;`` that follows on its line, then past spaces and tabs."""
    tail = parsed.data[end:parsed.line_end(end)]
    if tail.lstrip(b" \t").startswith(b";"):
        end += tail.index(b";") + 1
    while end < len(parsed.data) and parsed.data[end:end + 1] in (b" ", b"\t"):
        end += 1
    return end


def callees_for(language: str, what: str) -> frozenset[str]:
    """The calls that count as debug output in ``language`` for ``what``."""
    if what == "console.log":
        return frozenset({"console.log"}) if language in _JS else frozenset()
    return _CALLEES.get(language, frozenset())


def remove_prints_in(path: str, text: str, what: str) -> tuple[FileChange, int]:
    """The change and how many statements it removes (0: nothing to do)."""
    parsed = parse(path, text)
    callees = callees_for(parsed.language, what) if parsed is not None else frozenset()
    if parsed is None or not callees:
        return FileChange(path, text, text), 0
    found = [n for n in walk(parsed.tree.root_node) if _is_debug(parsed, n, callees)]
    removed = {n.id for n in found}
    filled: set[int] = set()
    splices = [Splice(*_cut(parsed, node, removed, filled)) for node in found]
    change = FileChange.spliced(path, text, splices)
    if splices and parsed.language == "go" and not _FMT_USE.search(change.new):
        drop = _go_import(parsed, '"fmt"')
        if drop is not None:
            change = FileChange.spliced(path, text, [*splices, drop])
    return change, len(splices)


def _go_import(parsed: Parsed, module: str) -> Splice | None:
    """Removing ``module``'s import line (go refuses unused imports)."""
    for spec in walk(parsed.tree.root_node):
        if spec.type != "import_spec" or parsed.node_text(spec).strip() != module:
            continue
        owner = spec.parent if spec.parent is not None and spec.parent.type == \
            "import_declaration" else spec
        start = parsed.line_start(owner.start_byte)
        end = parsed.line_end(owner.end_byte - 1)
        data = parsed.data
        if owner is not spec and data[end:end + 1] == b"\n" and data[:start].endswith(b"\n\n"):
            end += 1
        return Splice(start, end)
    return None


def remove_prints(instruction: Instruction, files: dict[str, str], named: list[str]) -> OpResult:
    paths = pick_files(files, named, lambda _p, _t: True)
    changes: list[FileChange] = []
    total = 0
    for path in paths:
        change, count = remove_prints_in(path, files[path], instruction.what)
        if count:
            changes.append(change)
            total += count
    label = "console.log" if instruction.what == "console.log" else "print"
    if not changes:
        raise CannotHelp(f"I found no {label} statements to remove in "
                         f"{', '.join(paths) or 'the files in this request'}.", show_help=False)
    return OpResult(lead=f"Removing the {label} statements.",
                    summary=f"Removed {plural(total, 'statement')} from "
                            f"{plural(len(changes), 'file')}.",
                    changes=tuple(changes))
