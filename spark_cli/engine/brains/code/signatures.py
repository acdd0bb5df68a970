"""Reading a definition's signature: its parameter names, and words made from names.

Used to write docstrings (``parse_config(path, strict=False)`` → "Parse config."
plus one line per parameter) and to find where a new parameter goes.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from spark_cli.engine.brains.code.trees import Parsed, function_of, is_identifier, walk

if TYPE_CHECKING:
    import tree_sitter

_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_SKIP_PARAMS = frozenset({"self", "cls", "this"})
_SKIP_TYPES = frozenset({"self_parameter", "comment", "keyword_separator",
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
    function = function_of(definition)
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
        if child.type in _SKIP_TYPES:
            continue
        out.extend(n for n in _param_names(parsed, child) if n not in _SKIP_PARAMS)
    return out
