"""Add a parameter and update every call site the rename logic says is the function."""

from __future__ import annotations

from typing import TYPE_CHECKING

from spark_cli.engine.brains.code.edit_text import FileChange, Splice
from spark_cli.engine.brains.code.trees import (
    Parsed,
    find_definitions,
    named_leaves,
    parameter_names,
    parse,
)
from spark_cli.engine.brains.rules.instruction_parser import Instruction
from spark_cli.engine.brains.rules.ops.op_definitions import with_parameter
from spark_cli.engine.brains.rules.rename_refs import MEMBER_ACCESS, FileRefs, Symbol
from spark_cli.engine.brains.rules.results import OpResult, plural

if TYPE_CHECKING:
    import tree_sitter

_CALLS = frozenset({"call", "call_expression", "method_invocation"})
_COMMENTS = frozenset({"comment", "line_comment", "block_comment"})


def _splice_between(old: str, new: str) -> Splice:
    """The one splice that turns ``old`` into ``new`` (common head and tail kept)."""
    a, b = old.encode("utf-8"), new.encode("utf-8")
    head = 0
    limit = min(len(a), len(b))
    while head < limit and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < limit - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    return Splice(head, len(a) - tail, b[head:len(b) - tail])


def _call_of(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The call whose callee is ``node`` (``foo(…)``, ``x.foo(…)``), if any."""
    parent = node.parent
    if parent is None:
        return None
    if parent.type == "method_invocation":  # java: name field
        name = parent.child_by_field_name("name")
        return parent if name is not None and name.id == node.id else None
    callee: tree_sitter.Node = node
    access = MEMBER_ACCESS.get(parent.type)
    if access is not None and parent.type not in _CALLS:
        callee, parent = parent, parent.parent
        if parent is None:
            return None
    function = parent.child_by_field_name("function")
    if parent.type in _CALLS and function is not None and function.id == callee.id:
        return parent
    return None


def _argument_splice(parsed: Parsed, call: tree_sitter.Node, param: str, value: str,
                     index: int) -> Splice | None:
    args = call.child_by_field_name("arguments")
    if args is None or args.type not in ("argument_list", "arguments"):
        return None
    present = [c for c in args.named_children if c.type not in _COMMENTS]
    close = args.end_byte - 1
    if parsed.language == "python":
        for arg in present:
            key = arg.child_by_field_name("name") if arg.type == "keyword_argument" else None
            if key is not None and parsed.node_text(key) == param:
                return None  # passes it already
        text = f"{param}={value}"
        return Splice(present[-1].end_byte, present[-1].end_byte, f", {text}".encode()) \
            if present else Splice(close, close, text.encode())
    if len(present) > index:
        at = present[index].start_byte
        return Splice(at, at, f"{value}, ".encode())
    padding = ["undefined"] * (index - len(present)) if parsed.language in (
        "javascript", "typescript", "tsx") else []
    text = ", ".join([*padding, value])
    if present:
        return Splice(present[-1].end_byte, present[-1].end_byte, f", {text}".encode())
    return Splice(close, close, text.encode())


def _position(path: str, text: str, name: str, param: str) -> int:
    parsed = parse(path, text)
    found = find_definitions(parsed, name) if parsed is not None else []
    names = [n.lstrip("*.") for n in parameter_names(parsed, found[0])] \
        if parsed is not None and found else []
    return names.index(param) if param in names else len(names)


def _call_splices(parsed: Parsed, refs: FileRefs, name: str, param: str, value: str,
                  index: int) -> list[Splice]:
    out = []
    for node in named_leaves(parsed, name):
        call = _call_of(node)
        if call is None or not refs.refers(node):
            continue
        splice = _argument_splice(parsed, call, param, value, index)
        if splice is not None:
            out.append(splice)
    return out


def _caller_changes(files: dict[str, str], defined_in: str, new_def: str, name: str,
                    param: str, passed: str) -> tuple[list[FileChange], int]:
    """Every file's change (the definition's, the calls') and how many calls pass it."""
    index = _position(defined_in, new_def, name, param)
    parsed = {p: v for p, t in files.items() if (v := parse(p, t)) is not None}
    symbol = Symbol(name, parsed)
    changes: list[FileChange] = []
    calls = 0
    for path, text in files.items():
        splices = [_splice_between(text, new_def)] if path == defined_in else []
        if path in parsed and name in text:
            refs = FileRefs(parsed[path], symbol)
            if refs.foreign is None:
                found = _call_splices(parsed[path], refs, name, param, passed, index)
                calls += len(found)
                splices += found
        if splices:
            changes.append(FileChange.spliced(path, text, splices))
    return changes, calls


def add_parameter_and_callers(instruction: Instruction, files: dict[str, str],
                              named: list[str], value: str) -> OpResult:
    """The definition and every call changed: calls pass the value given, else the default,
    else the name (python by keyword, others at the parameter's position)."""
    name, param = instruction.name, instruction.what
    defined_in, new_def = with_parameter(instruction, files, named)
    passed = value or instruction.new or param
    changes, calls = _caller_changes(files, defined_in, new_def, name, param, passed)
    where = ", ".join(c.path for c in changes)
    note = "" if calls else " (it has no call sites in the request)"
    if calls and not (value or instruction.new):
        note = f" (the callers pass `{param}`: it must be defined where they call)"
    return OpResult(lead=f"Add the parameter `{param}` to `{name}` in {defined_in} and update "
                         f"its call sites ({where}).",
                    summary=f"Added `{param}` to `{name}` and updated "
                            f"{plural(calls, 'call')} to pass `{passed}`{note}.",
                    changes=tuple(changes))
