"""Add a docstring made from the name and the parameters: python ``\"\"\"…\"\"\"``,
JSDoc/Javadoc ``/** … */``, go ``//``, rust ``///``; one that has one is left alone."""

from __future__ import annotations

from typing import TYPE_CHECKING

from spark_cli.edits.lang.definitions import last_row, outer
from spark_cli.engine.brains.code.edit_text import FileChange, Splice
from spark_cli.engine.brains.code.trees import (
    COMMENTS,
    Parsed,
    find_definitions,
    leading_start,
    named_definitions,
    parameter_names,
    parse,
    sentence,
    third_person,
    words,
)
from spark_cli.engine.brains.rules.instruction_parser import Instruction
from spark_cli.engine.brains.rules.results import CannotHelp, OpResult, pick_files, plural

if TYPE_CHECKING:
    import tree_sitter



def _describe(param: str) -> str:
    return "The " + " ".join(words(param.lstrip("*."))) + "."


def _python(parsed: Parsed, node: tree_sitter.Node, name: str) -> tuple[int, str]:
    body = node.child_by_field_name("body")
    if body is None or body.start_point.row == node.start_point.row:
        raise CannotHelp(f"`{name}` is written on one line; I only add docstrings to "
                         "definitions with an indented body.", show_help=False)
    first = next((c for c in body.named_children if c.type not in COMMENTS), None)
    if first is not None and first.type == "expression_statement" and \
            first.named_child_count == 1 and first.named_children[0].type == "string":
        raise CannotHelp(f"`{name}` already has a docstring; nothing to change.",
                         show_help=False)
    anchor = first if first is not None else body
    indent = parsed.indent_at(anchor.start_byte)
    colon = next((c for c in node.children if c.type == ":"), None)
    at = parsed.line_end(colon.start_byte) if colon is not None else \
        parsed.line_start(anchor.start_byte)
    params = parameter_names(parsed, node) if node.type == "function_definition" else []
    if not params:
        lines = [f'"""{sentence(name)}"""']
    else:
        lines = [f'"""{sentence(name)}', "", "Args:"]
        lines += [f"    {p.lstrip('*')}: {_describe(p)}" for p in params]
        lines.append('"""')
    text = "".join((indent + line).rstrip() + "\n" for line in lines)
    return at, text


def _comment_lines(parsed: Parsed, node: tree_sitter.Node, name: str) -> list[str]:
    params = parameter_names(parsed, node)
    lang = parsed.language
    if lang == "go":
        return [f"// {name} {third_person(name)}"]
    if lang == "rust":
        lines = [f"/// {sentence(name)}"]
        if params:
            lines += ["///", "/// # Arguments", "///"]
            lines += [f"/// * `{p}` - {_describe(p)}" for p in params]
        return lines
    lines = ["/**", f" * {sentence(name)}"]
    if params:
        lines.append(" *")
        lines += [f" * @param {p.lstrip('.')} {_describe(p)}" for p in params]
    return [*lines, " */"]


def _above(parsed: Parsed, node: tree_sitter.Node, name: str) -> tuple[int, str]:
    top = outer(node)
    start = leading_start(parsed, top)
    first, previous = top, top.prev_sibling
    while previous is not None and previous.type == "attribute_item":
        first, previous = previous, previous.prev_sibling
    if previous is not None and previous.type in COMMENTS and \
            last_row(previous) + 1 == first.start_point.row:
        raise CannotHelp(f"`{name}` already has a comment above it; nothing to change.",
                         show_help=False)
    indent = parsed.indent_at(top.start_byte)
    text = "".join(indent + line + "\n" for line in _comment_lines(parsed, node, name))
    return parsed.line_start(start), text


def docstring_at(parsed: Parsed, node: tree_sitter.Node, name: str) -> tuple[int, str]:
    """Where the docstring of ``node`` goes and its text (:class:`CannotHelp`: it cannot)."""
    if parsed.language == "python":
        return _python(parsed, node, name)
    return _above(parsed, node, name)


def add_docstring_in(path: str, text: str, name: str) -> str | None:
    """The text with a docstring for ``name``; None when the file has no such definition."""
    parsed = parse(path, text)
    if parsed is None:
        return None
    found = find_definitions(parsed, name)
    if not found:
        return None
    at, doc = docstring_at(parsed, found[0], name)
    return (parsed.data[:at] + doc.encode() + parsed.data[at:]).decode()


def add_docstring(instruction: Instruction, files: dict[str, str], named: list[str]) -> OpResult:
    name = instruction.name
    for path in pick_files(files, named, lambda _p, text: name in text):
        new = add_docstring_in(path, files[path], name)
        if new is not None:
            return OpResult(lead=f"Adding a docstring to `{name}` in {path}.",
                            summary=f"Documented `{name}` in {path}.",
                            changes=(FileChange(path, files[path], new),))
    raise CannotHelp(f"I found no function or class named `{name}` in "
                     f"{', '.join(named or list(files)) or 'the request'}.")


def document_all(instruction: Instruction, files: dict[str, str], named: list[str],
                 kinds: frozenset[str]) -> OpResult:
    """Every function and/or class (``kinds``) documented; those that cannot be are counted."""
    what = " and ".join(sorted(kinds, reverse=True))  # "function and class"
    paths = pick_files(files, named, lambda p, _t: True)
    changes: list[FileChange] = []
    done = kept = 0
    for path in paths:
        parsed = parse(path, files[path])
        if parsed is None:
            continue
        splices = []
        for node, name, kind in named_definitions(parsed):
            if ("class" if kind == "type" else "function") not in kinds:
                continue
            try:
                at, doc = docstring_at(parsed, node, name)
            except CannotHelp:
                kept += 1
                continue
            splices.append(Splice(at, at, doc.encode("utf-8")))
        if splices:
            changes.append(FileChange.spliced(path, files[path], splices))
            done += len(splices)
    where = ", ".join(paths)
    if not changes:
        reason = (f"every one of the {plural(kept, 'definition')} already has one"
                  if kept else f"I found no {what} definitions there")
        raise CannotHelp(f"Nothing to document in {where}: {reason}.", show_help=False)
    note = f"; {kept} already had one (left alone)" if kept else ""
    return OpResult(lead=f"Add a docstring to every {what} in {where}",
                    summary=f"Documented {plural(done, 'definition')} in "
                            f"{plural(len(changes), 'file')}{note}.",
                    changes=tuple(changes))
