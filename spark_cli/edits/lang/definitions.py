"""Definitions in a syntax tree: what a file defines, and where; spark's own query per
language, since the wheels' TAGS_QUERY files are uneven (TypeScript ships none)."""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from spark_cli.edits.lang.grammars import get_language
from spark_cli.record import record

if TYPE_CHECKING:
    import tree_sitter

_JS = """
(function_declaration name: (_) @name) @function
(generator_function_declaration name: (_) @name) @function
(function_expression name: (_) @name) @function
(method_definition name: (_) @name) @function
(class_declaration name: (_) @name) @type
(variable_declarator name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function) (class)]) @function
(pair key: (_) @name value: [(arrow_function) (function_expression)]) @function
(assignment_expression left: [(identifier) @name (member_expression property: (_) @name)]
  right: [(arrow_function) (function_expression)]) @function
"""
_TS = _JS + """
(abstract_class_declaration name: (_) @name) @type
(interface_declaration name: (_) @name) @type
(type_alias_declaration name: (_) @name) @type
(enum_declaration name: (_) @name) @type
(internal_module name: (_) @name) @type
(function_signature name: (_) @name) @function
(method_signature name: (_) @name) @function
(abstract_method_signature name: (_) @name) @function
"""
_C_FUNCTIONS = """
(function_definition declarator: (function_declarator declarator: (_) @name)) @function
(function_definition declarator: (pointer_declarator
  declarator: (function_declarator declarator: (_) @name))) @function
(declaration declarator: (function_declarator declarator: (_) @name)) @function
(declaration declarator: (pointer_declarator
  declarator: (function_declarator declarator: (_) @name))) @function
(field_declaration declarator: (function_declarator declarator: (_) @name)) @function
(struct_specifier name: (_) @name body: (_)) @type
(union_specifier name: (_) @name body: (_)) @type
(enum_specifier name: (_) @name body: (_)) @type
(type_definition declarator: (type_identifier) @name) @type
"""
_QUERIES: dict[str, str] = {
    "python": """
(function_definition name: (identifier) @name) @function
(class_definition name: (identifier) @name) @type
(module (expression_statement (assignment left: (identifier) @name) @constant))
""",
    "javascript": _JS,
    "typescript": _TS,
    "tsx": _TS,
    "go": """
(function_declaration name: (identifier) @name) @function
(method_declaration name: (field_identifier) @name) @function
(type_spec name: (type_identifier) @name) @type
""",
    "rust": """
(function_item name: (identifier) @name) @function
(function_signature_item name: (identifier) @name) @function
(struct_item name: (type_identifier) @name) @type
(enum_item name: (type_identifier) @name) @type
(union_item name: (type_identifier) @name) @type
(trait_item name: (type_identifier) @name) @type
(type_item name: (type_identifier) @name) @type
(mod_item name: (identifier) @name) @type
(macro_definition name: (identifier) @name) @function
(impl_item type: (_) @name) @type
""",
    "java": """
(class_declaration name: (identifier) @name) @type
(interface_declaration name: (identifier) @name) @type
(enum_declaration name: (identifier) @name) @type
(record_declaration name: (identifier) @name) @type
(annotation_type_declaration name: (identifier) @name) @type
(method_declaration name: (identifier) @name) @function
(constructor_declaration name: (identifier) @name) @function
""",
    "c": _C_FUNCTIONS,
    "cpp": _C_FUNCTIONS + """
(function_definition declarator: (reference_declarator
  (function_declarator declarator: (_) @name))) @function
(class_specifier name: (_) @name body: (_)) @type
(namespace_definition name: (_) @name) @type
""",
    "ruby": """
(method name: (_) @name) @function
(singleton_method name: (_) @name) @function
(class name: (_) @name) @type
(module name: (_) @name) @type
""",
    "bash": "(function_definition name: (word) @name) @function\n",
}
_KINDS = ("function", "type", "constant")
# wrappers that belong to a definition (deleting the definition deletes them too)
_WRAPPERS = frozenset({"decorated_definition", "export_statement", "lexical_declaration",
                       "variable_declaration", "type_declaration", "template_declaration",
                       "expression_statement"})
_WS = re.compile(r"\s+")
_GENERIC = re.compile(r"\s*<.*$", re.S)


@record
class DefinitionNode:
    """One definition in a tree: its node, the node of its name, and its kind."""

    node: tree_sitter.Node
    name: tree_sitter.Node
    kind: str


@record
class DefinitionSpan:
    """One definition's lines: its name, kind ("function"/"type"), lines and header."""

    name: str
    kind: str
    start: int  # 0-based first line (wrappers such as decorators included)
    end: int  # 0-based last line, inclusive
    header: str  # whitespace-collapsed text from the node start to the end of the name's line


def has_definitions(language: str | None) -> bool:
    return language in _QUERIES


@cache
def _query(language: str) -> tree_sitter.Query:
    import tree_sitter  # deferred: launch -> request

    return tree_sitter.Query(get_language(language), _QUERIES[language])


def definition_nodes(tree: tree_sitter.Tree, language: str, *,
                     constants: bool = False) -> list[DefinitionNode]:
    """Every definition in ``tree``, outer first (Python module constants on request)."""
    if language not in _QUERIES:
        return []
    import tree_sitter  # deferred: launch -> request

    found: dict[tuple[int, int], DefinitionNode] = {}
    for _index, captures in tree_sitter.QueryCursor(_query(language)).matches(tree.root_node):
        kind = next((k for k in _KINDS if k in captures), None)
        names = captures.get("name")
        if kind is None or not names or (kind == "constant" and not constants):
            continue
        node, name = captures[kind][0], names[0]
        found.setdefault((node.start_byte, name.start_byte), DefinitionNode(node, name, kind))
    return sorted(found.values(), key=lambda d: (d.node.start_byte, -d.node.end_byte))


def name_text(found: DefinitionNode) -> str:
    """The definition's name as written (a generic's ``<T>`` dropped)."""
    return _GENERIC.sub("", (found.name.text or b"").decode("utf-8", "replace"))


def outer(node: tree_sitter.Node) -> tree_sitter.Node:
    """The definition with its wrappers (decorators, ``export``, ``const x =``)."""
    top = node
    while top.parent is not None and top.parent.type in _WRAPPERS:
        top = top.parent
    return top


def last_row(node: tree_sitter.Node) -> int:
    """The last row holding text of ``node`` (a rust ``//`` comment includes its newline)."""
    end = node.end_point
    return end.row - 1 if end.column == 0 and end.row > node.start_point.row else end.row


@lru_cache(maxsize=8)
def definitions(text: str, language: str) -> list[DefinitionSpan]:
    """All definitions in ``text`` as line spans (by first line); [] without a query."""
    if language not in _QUERIES:
        return []
    from spark_cli.edits.lang.syntax import parse_text  # deferred: launch -> request

    lines = text.split("\n")
    spans = []
    for d in definition_nodes(parse_text(language, text), language):
        top = outer(d.node)
        header = " ".join(lines[d.node.start_point.row:d.name.end_point.row + 1])
        spans.append(DefinitionSpan(name_text(d), d.kind, top.start_point.row, last_row(top),
                                    _WS.sub(" ", header).strip()))
    spans.sort(key=lambda s: (s.start, -s.end))
    return spans
