"""Change a definition as a whole: delete it (with its decorators, doc comments and the
blank lines after it; an emptied python block gets ``pass``), or add a parameter to it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from spark_cli.edits.lang.definitions import outer
from spark_cli.engine.brains.code.edit_text import FileChange, Splice
from spark_cli.engine.brains.code.trees import (
    COMMENTS,
    Parsed,
    find_definitions,
    is_identifier,
    leading_start,
    parameters_node,
    parse,
)
from spark_cli.engine.brains.rules.instruction_parser import Instruction
from spark_cli.engine.brains.rules.results import CannotHelp, OpResult, pick_files, plural

if TYPE_CHECKING:
    import tree_sitter

_NEEDS_TYPE = {"go": "{} int", "rust": "{}: i32", "java": "{} of type int"}


def _delete_span(parsed: Parsed, node: tree_sitter.Node) -> tuple[int, int, bytes]:
    top = outer(node)
    start = parsed.line_start(leading_start(parsed, top))
    end = parsed.line_end(max(top.end_byte - 1, top.start_byte))
    data = parsed.data
    filler = b""
    parent = top.parent
    if parsed.language == "python" and parent is not None and parent.type == "block":
        siblings = [c for c in parent.named_children if c.type not in COMMENTS]
        if siblings == [top]:
            filler = (parsed.indent_at(top.start_byte) + "pass\n").encode()
    if not filler:
        after = end
        while after < len(data):
            line_end = parsed.line_end(after)
            if data[after:line_end].strip():
                break
            after = line_end
        before_blank = start == 0 or data[:start].endswith(b"\n\n")
        if after >= len(data):  # last in the file: drop the blank lines before it
            while start > 0 and data[:start].endswith(b"\n\n"):
                start -= 1
            end = len(data)
        elif before_blank:
            end = after
    return start, end, filler


def _depth(node: tree_sitter.Node) -> int:
    depth, parent = 0, node.parent
    while parent is not None:
        depth, parent = depth + 1, parent.parent
    return depth


def _shallowest(nodes: list[tree_sitter.Node]) -> list[tree_sitter.Node]:
    """The outermost definitions of a name (a top-level ``foo`` before method ``K.foo``)."""
    if not nodes:
        return nodes
    least = min(_depth(n) for n in nodes)
    return [n for n in nodes if _depth(n) == least]


def delete_in(path: str, text: str, name: str) -> tuple[FileChange, list[int]]:
    """(the change, 1-based lines of the deleted definitions); none found → no lines."""
    parsed = parse(path, text)
    if parsed is None:
        return FileChange(path, text, text), []
    found = _shallowest(find_definitions(parsed, name))
    # a span nested in one already deleted is dropped by FileChange.spliced
    splices = [Splice(start, end, filler)
               for start, end, filler in {_delete_span(parsed, node) for node in found}]
    return (FileChange.spliced(path, text, splices),
            [node.start_point.row + 1 for node in found])


def delete_definition(instruction: Instruction, files: dict[str, str],
                      named: list[str]) -> OpResult:
    name = instruction.name
    changes: list[FileChange] = []
    where: list[str] = []
    for path in pick_files(files, named, lambda _p, text: name in text):
        change, lines = delete_in(path, files[path], name)
        if lines:
            changes.append(change)
            where.append(f"{path} (line{'s' if len(lines) > 1 else ''} "
                         f"{', '.join(map(str, lines))})")
    if not changes:
        raise CannotHelp(f"I found no function or class named `{name}` in "
                         f"{', '.join(named or list(files)) or 'the request'}.")
    count = sum(len(w.split(",")) for w in where)
    return OpResult(lead=f"Deleting `{name}` from {', '.join(c.path for c in changes)}.",
                    summary=f"Deleted {plural(count, 'definition')} of `{name}`: "
                            f"{'; '.join(where)}.",
                    changes=tuple(changes))


def _param_text(language: str, name: str, type_: str, default: str) -> str:
    if language in _NEEDS_TYPE and not type_:
        example = _NEEDS_TYPE[language].format(name)
        raise CannotHelp(f"A {language} parameter needs a type: say e.g. `add parameter "
                         f"{example} to …` (`{name}: TYPE` or `{name} of type TYPE`).",
                         show_help=False)
    if language == "go":
        return f"{name} {type_}"
    if language == "rust":
        return f"{name}: {type_}"
    if language == "java":
        return f"{type_} {name}"
    typed = f"{name}: {type_}" if type_ and language != "javascript" else name
    if not default:
        return typed
    return f"{typed} = {default}" if (type_ or language != "python") else f"{name}={default}"


_LATE_PY = frozenset({"list_splat_pattern", "dictionary_splat_pattern", "keyword_separator",
                      "positional_separator"})
_DEFAULT_PY = frozenset({"default_parameter", "typed_default_parameter"})
_REST = frozenset({"rest_pattern", "variadic_parameter_declaration", "variadic_parameter",
                   "spread_parameter"})


def _before(parsed: Parsed, params: list[tree_sitter.Node], has_default: bool
            ) -> tree_sitter.Node | None:
    for param in params:
        kind = param.type
        if parsed.language == "python":
            if kind == "dictionary_splat_pattern" or (
                    not has_default and (kind in _DEFAULT_PY or kind in _LATE_PY)):
                return param
        elif kind in _REST or any(c.type in _REST for c in param.children):
            return param
    return None


def add_parameter_in(path: str, text: str, instruction: Instruction) -> str | None:
    """Add a parameter, last but before ``*args``/rest/variadics (python: before the first
    default when it has none); go, rust and java need a type. Call sites are not changed."""
    parsed = parse(path, text)
    if parsed is None:
        return None
    found = find_definitions(parsed, instruction.name)
    found = _shallowest([n for n in found if parameters_node(n) is not None])
    if not found:
        return None
    params_node = parameters_node(found[0])
    assert params_node is not None
    new = _param_text(parsed.language, instruction.what, instruction.type, instruction.new)
    data = parsed.data
    if is_identifier(params_node):  # `x => …` becomes `(x, new) => …`
        s, e = params_node.start_byte, params_node.end_byte
        return (data[:s] + b"(" + data[s:e] + b", " + new.encode() + b")" + data[e:]).decode()
    params = [c for c in params_node.named_children if c.type not in COMMENTS]
    if instruction.what in {parsed.node_text(p).split("=")[0].split(":")[0].strip()
                            for p in params}:
        raise CannotHelp(f"`{instruction.name}` already has a parameter "
                         f"`{instruction.what}`.", show_help=False)
    before = _before(parsed, params, bool(instruction.new))
    multiline = params_node.start_point.row != params_node.end_point.row and params
    if before is not None:
        at = before.start_byte
        indent = parsed.indent_at(at)
        own_line = parsed.line_start(at) + len(indent.encode()) == at
        insert = new + (",\n" + indent if multiline and own_line else ", ")
    elif not params:
        at = params_node.end_byte - 1
        insert = new
    else:
        last = params[-1]
        at = last.end_byte
        if multiline:
            indent = parsed.indent_at(last.start_byte)
            rest = data[at:params_node.end_byte - 1]
            if rest.lstrip().startswith(b","):
                at += rest.index(b",") + 1
                insert = f"\n{indent}{new},"
            else:
                insert = f",\n{indent}{new}"
        else:
            insert = f", {new}"
    return (data[:at] + insert.encode() + data[at:]).decode()


def with_parameter(instruction: Instruction, files: dict[str, str],
                   named: list[str]) -> tuple[str, str]:
    """(the file that defines the function, its text with the parameter added)."""
    name = instruction.name
    for path in pick_files(files, named, lambda _p, text: name in text):
        changed = add_parameter_in(path, files[path], instruction)
        if changed is not None:
            return path, changed
    raise CannotHelp(f"I found no function named `{name}` in "
                     f"{', '.join(named or list(files)) or 'the request'}.")


def add_parameter(instruction: Instruction, files: dict[str, str], named: list[str]) -> OpResult:
    name, param = instruction.name, instruction.what
    path, new = with_parameter(instruction, files, named)
    return OpResult(lead=f"Adding the parameter `{param}` to `{name}` in {path}.",
                    summary=f"Added `{param}` to `{name}`"
                            + ("" if instruction.new else "; call sites still need to pass it")
                            + ".",
                    changes=(FileChange(path, files[path], new),))
