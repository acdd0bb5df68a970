"""Syntax-tree helpers shared by the brains' operations: parsed files, walks, identifiers,
definitions and signatures. Offsets are UTF-8 bytes, as tree-sitter gives them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from spark_cli.edits.lang.definitions import definition_nodes, last_row, name_text
from spark_cli.edits.lang.grammars import language_for_path
from spark_cli.edits.lang.syntax import parse_text

if TYPE_CHECKING:
    import tree_sitter

COMMENTS = frozenset({"comment", "line_comment", "block_comment"})
_SKIP = COMMENTS | frozenset({"string", "string_literal",
                   "template_string", "raw_string_literal", "interpreted_string_literal",
                   "string_content", "char_literal", "character_literal"})


class Parsed:
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


def walk(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    """Every node under ``node``, not into strings or comments (but into a string's code)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if current.type not in _SKIP:
            stack.extend(reversed(current.children))
        elif current.child_count:
            stack.extend(c for c in reversed(current.children) if c.type in _CODE_IN_STRINGS)


def is_identifier(node: tree_sitter.Node) -> bool:
    return node.child_count == 0 and node.type.endswith("identifier")


def named_leaves(parsed: Parsed, name: str) -> Iterator[tree_sitter.Node]:
    """The identifier leaves spelled ``name``, in :func:`walk`'s order (none in strings)."""
    target = name.encode("utf-8")
    return (node for node in walk(parsed.tree.root_node)
            if is_identifier(node) and parsed.data[node.start_byte:node.end_byte] == target)


def find_definitions(parsed: Parsed, name: str) -> list[tree_sitter.Node]:
    return [node for node, found, _ in named_definitions(parsed) if found == name]


def named_definitions(parsed: Parsed) -> list[tuple[tree_sitter.Node, str, str]]:
    """Every definition node with its name and kind ("function"/"type"), in document order."""
    return [(d.node, name_text(d), d.kind)
            for d in definition_nodes(parsed.tree, parsed.language)]


def leading_start(parsed: Parsed, node: tree_sitter.Node) -> int:
    """Start byte of ``node`` including the attributes/doc comments right above it."""
    start = node
    previous = node.prev_sibling
    while previous is not None and (previous.type == "attribute_item"
                                    or previous.type in COMMENTS):
        if last_row(previous) + 1 < start.start_point.row:
            break  # a blank line in between: not attached
        if parsed.language == "python":
            break  # python comments above a def are not part of it
        start, previous = previous, previous.prev_sibling
    return start.start_byte


_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_SKIP_PARAMS = frozenset({"self", "cls", "this"})
_SKIP_PARAM_TYPES = frozenset({"self_parameter", "comment", "keyword_separator",
                         "positional_separator", "line_comment", "block_comment"})


def words(name: str) -> list[str]:
    """``parseConfigFile`` / ``parse_config_file`` → ["parse", "config", "file"]."""
    return [w.lower() for w in _WORDS.findall(name)] or [name]


def sentence(name: str) -> str:
    """``parse_config`` → "Parse config." """
    text = " ".join(words(name))
    return text[:1].upper() + text[1:] + "."


def third_person(name: str) -> str:
    """``parse_config`` → "parses config." (for Go's "Name does …" comments)."""
    ws = words(name)
    verb = ws[0]
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        verb += "es"
    elif verb.endswith("y") and len(verb) > 1 and verb[-2] not in "aeiou":
        verb = verb[:-1] + "ies"
    else:
        verb += "s"
    return " ".join([verb, *ws[1:]]) + "."


def parameters_node(definition: tree_sitter.Node) -> tree_sitter.Node | None:
    """The parameter list (of the arrow function, for ``const f = () => …``)."""
    function = definition
    if definition.type == "variable_declarator":
        function = definition.child_by_field_name("value") or definition
    return (function.child_by_field_name("parameters")
            or function.child_by_field_name("parameter"))


def _param_names(parsed: Parsed, param: tree_sitter.Node) -> list[str]:
    if is_identifier(param):
        return [parsed.node_text(param)]
    names = param.children_by_field_name("name")
    if names:
        return [parsed.node_text(n) for n in names]
    for field in ("pattern", "left"):
        inner = param.child_by_field_name(field)
        if inner is not None:
            return _param_names(parsed, inner)
    for node in walk(param):
        if is_identifier(node):
            prefix = "**" if param.type == "dictionary_splat_pattern" else \
                "*" if param.type == "list_splat_pattern" else \
                "..." if param.type == "rest_pattern" else ""
            return [prefix + parsed.node_text(node)]
    return []


def parameter_names(parsed: Parsed, definition: tree_sitter.Node) -> list[str]:
    """The parameter names (without ``self``/``cls``/``this`` and receivers)."""
    params = parameters_node(definition)
    if params is None:
        return []
    if is_identifier(params):  # `x => …`
        return [parsed.node_text(params)]
    out: list[str] = []
    for child in params.named_children:
        if child.type in _SKIP_PARAM_TYPES:
            continue
        out.extend(n for n in _param_names(parsed, child) if n not in _SKIP_PARAMS)
    return out
