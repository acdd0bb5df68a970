"""Syntax-tree helpers shared by the rules brain's operations (tree-sitter, via spark_cli.edits).

Which node types are definitions, identifiers and comments per language, a
bounded walk, and finding a definition by name. Offsets are UTF-8 bytes, as
tree-sitter gives them; callers edit the encoded text.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from spark_cli.edits.lang.grammars import language_for_path
from spark_cli.edits.lang.syntax import parse_text

if TYPE_CHECKING:
    import tree_sitter

DEFINITION_TYPES: dict[str, frozenset[str]] = {
    "python": frozenset({"function_definition", "class_definition"}),
    "javascript": frozenset({"function_declaration", "generator_function_declaration",
                             "method_definition", "class_declaration", "variable_declarator"}),
    "go": frozenset({"function_declaration", "method_declaration", "type_spec"}),
    "rust": frozenset({"function_item", "struct_item", "enum_item", "trait_item", "mod_item",
                       "function_signature_item"}),
    "java": frozenset({"method_declaration", "class_declaration", "constructor_declaration",
                       "interface_declaration", "enum_declaration", "record_declaration"}),
}
DEFINITION_TYPES["typescript"] = DEFINITION_TYPES["javascript"] | {
    "interface_declaration", "type_alias_declaration", "abstract_class_declaration",
    "function_signature", "method_signature", "enum_declaration"}
DEFINITION_TYPES["tsx"] = DEFINITION_TYPES["typescript"]
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function",
                              "generator_function"})
# wrappers that belong to a definition (deleting the definition deletes them too)
_WRAPPERS = frozenset({"decorated_definition", "export_statement", "lexical_declaration",
                       "variable_declaration", "type_declaration"})
_SKIP = frozenset({"string", "comment", "line_comment", "block_comment", "string_literal",
                   "template_string", "raw_string_literal", "interpreted_string_literal",
                   "string_content", "char_literal", "character_literal"})


class Parsed:
    """One file's text, bytes and tree."""

    def __init__(self, path: str, text: str, language: str) -> None:
        self.path, self.text, self.language = path, text, language
        self.data = text.encode("utf-8")
        self.tree: tree_sitter.Tree = parse_text(language, text)

    def node_text(self, node: tree_sitter.Node) -> str:
        return self.data[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def line_start(self, offset: int) -> int:
        """The byte offset where the line holding ``offset`` starts."""
        return self.data.rfind(b"\n", 0, offset) + 1

    def line_end(self, offset: int) -> int:
        """The byte offset just past the newline ending the line holding ``offset``."""
        end = self.data.find(b"\n", offset)
        return len(self.data) if end < 0 else end + 1

    def indent_at(self, offset: int) -> str:
        start = self.line_start(offset)
        line = self.data[start:self.line_end(offset)].decode("utf-8", "replace")
        return line[:len(line) - len(line.lstrip(" \t"))]


def parse(path: str, text: str) -> Parsed | None:
    """The parsed file, or None in text mode (no grammar for the path)."""
    language = language_for_path(path)
    if language is None:
        return None
    try:
        return Parsed(path, text, language)
    except (ImportError, KeyError):
        return None


_CODE_IN_STRINGS = frozenset({"interpolation", "template_substitution"})
"""Code inside a string: python f-string ``{…}``, js/ts template ``${…}``."""


def walk(node: tree_sitter.Node, skip: frozenset[str] = _SKIP) -> Iterator[tree_sitter.Node]:
    """Every node under ``node`` (pre-order), not descending into ``skip`` types -- except
    into the code inside a string (an f-string's ``{load(x)}``, a template's ``${x}``)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if current.type not in skip:
            stack.extend(reversed(current.children))
        elif current.child_count:
            stack.extend(c for c in reversed(current.children) if c.type in _CODE_IN_STRINGS)


def is_identifier(node: tree_sitter.Node) -> bool:
    return node.child_count == 0 and node.type.endswith("identifier")


def _name_of(node: tree_sitter.Node, parsed: Parsed) -> str | None:
    name = node.child_by_field_name("name")
    if name is None:
        return None
    if node.type == "variable_declarator":
        value = node.child_by_field_name("value")
        if value is None or value.type not in _FUNCTION_VALUES:
            return None
    return parsed.node_text(name)


def find_definitions(parsed: Parsed, name: str) -> list[tree_sitter.Node]:
    """Definition nodes named ``name`` (document order)."""
    types = DEFINITION_TYPES.get(parsed.language)
    if not types:
        return []
    return [node for node in walk(parsed.tree.root_node)
            if node.type in types and _name_of(node, parsed) == name]


def named_definitions(parsed: Parsed) -> list[tuple[tree_sitter.Node, str]]:
    """Every definition node with its name (document order)."""
    types = DEFINITION_TYPES.get(parsed.language)
    if not types:
        return []
    found = []
    for node in walk(parsed.tree.root_node):
        if node.type in types:
            name = _name_of(node, parsed)
            if name is not None:
                found.append((node, name))
    return found


def outer(node: tree_sitter.Node) -> tree_sitter.Node:
    """The definition with its wrappers (decorators, ``export``, ``const x =``)."""
    top = node
    while top.parent is not None and top.parent.type in _WRAPPERS:
        top = top.parent
    return top


def function_of(node: tree_sitter.Node) -> tree_sitter.Node:
    """For ``const f = () => …`` the arrow function; otherwise the node itself."""
    if node.type == "variable_declarator":
        value = node.child_by_field_name("value")
        if value is not None:
            return value
    return node


def last_row(node: tree_sitter.Node) -> int:
    """The last row holding text of ``node`` (a rust ``//`` comment includes its newline)."""
    end = node.end_point
    return end.row - 1 if end.column == 0 and end.row > node.start_point.row else end.row


def leading_start(parsed: Parsed, node: tree_sitter.Node) -> int:
    """Start byte of ``node`` including the attributes/doc comments right above it."""
    start = node
    previous = node.prev_sibling
    while previous is not None and (previous.type in ("attribute_item", "line_comment",
                                                      "comment", "block_comment")):
        if last_row(previous) + 1 < start.start_point.row:
            break  # a blank line in between: not attached
        if parsed.language == "python":
            break  # python comments above a def are not part of it
        start, previous = previous, previous.prev_sibling
    return start.start_byte
