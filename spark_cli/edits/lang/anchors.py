"""Structural anchors (`@@ def wrap`, `@@ class Foo`) → 0-based inclusive line ranges; each
later anchor is looked up inside the ranges of the one before."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from spark_cli.edits.lang.definitions import DefinitionSpan, definitions, last_row
from spark_cli.edits.lang.ends import common_prefix
from spark_cli.edits.lang.syntax import parse_text

if TYPE_CHECKING:
    import tree_sitter

Range = tuple[int, int]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_TYPE_WORDS = _words(
    "class struct interface enum trait impl module mod type namespace union record object")
_FUNCTION_WORDS = _words("def fn func function method sub proc macro_rules")
_KEYWORDS = _TYPE_WORDS | _FUNCTION_WORDS | _words(
    "pub public private protected internal static async export default abstract final const "
    "let var unsafe extern inline virtual override self for where void int char bool "
    "unsigned signed long short float double auto crate super in out fun")
_WS = re.compile(r"\s+")
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_QUALIFIED = re.compile(r"^[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)+$")
_QUALIFIER_SPLIT = re.compile(r"\.|::|#")
_CLOSERS = ("}", "end", ")", "]", "fi", "done", "esac")


def find_anchor_ranges(text: str, language: str | None,
                       anchors: Sequence[str]) -> list[Range]:
    """Line ranges for nested ``anchors`` ([] when the first matches nothing); each resolves
    by its text in a definition's header, else its main name (`main_name`), else the lines
    starting with it."""
    lines: list[str] = []  # split on first use by the line rule
    defs = definitions(text, language) if language else []
    scope: list[Range] | None = None
    for raw in anchors:
        anchor = raw.strip()
        if not anchor:
            continue
        parts = _qualified_parts(anchor)
        found = scope
        for part in parts:
            found = _resolve(part, text, lines, language, defs, found)
            if not found:
                break
        if not found:
            return scope or []
        scope = found
    return scope or []


def resolves(text: str, language: str | None, anchor: str) -> bool:
    """Does ``anchor`` name something anywhere in ``text`` (by the rules above)?"""
    defs = definitions(text, language) if language else []
    lines: list[str] = []
    return all(_resolve(part, text, lines, language, defs, None)
               for part in _qualified_parts(anchor.strip()))


def _qualified_parts(anchor: str) -> list[str]:
    bare = anchor.rstrip(":{( ").strip()
    if _QUALIFIED.match(bare) and not anchor.startswith(("#", "//")):
        return _QUALIFIER_SPLIT.split(bare)
    return [anchor]


def _inside(start: int, end: int, scope: list[Range] | None) -> bool:
    if scope is None:
        return True
    return any(s <= start <= e and (start, end) != (s, e) for s, e in scope)


def _resolve(anchor: str, text: str, lines: list[str], language: str | None,
             defs: list[DefinitionSpan], scope: list[Range] | None) -> list[Range]:
    pool = [d for d in defs if _inside(d.start, d.end, scope)]
    norm = _WS.sub(" ", anchor).strip().rstrip(":{").rstrip()
    if pool and norm:
        pattern = _boundary_pattern(norm)
        words = set(_IDENT.findall(norm))
        hits = [d for d in pool if _names_it(norm, words, d.name) and pattern.search(d.header)]
        if hits:
            return _ranges(hits)
        hits = _by_name(norm, pool)
        if hits:
            return _ranges(hits)
    return _line_ranges(anchor.strip(), text, lines, language, scope)


def _by_name(norm: str, pool: list[DefinitionSpan]) -> list[DefinitionSpan]:
    """The definitions the anchor names (of its kind where some are), longest header agreement."""
    name, kind = main_name(norm)
    if not name:
        return []
    hits = [d for d in pool if d.name == name or d.name.rsplit("::", 1)[-1] == name]
    typed = [d for d in hits if d.kind == kind]
    if typed:
        hits = typed
    if len(hits) > 1:  # a partial signature: keep the headers that agree longest
        squeezed = _WS.sub("", norm)
        headers = [_WS.sub("", d.header) for d in hits]
        scores = [common_prefix(squeezed, h, min(len(squeezed), len(h))) for h in headers]
        best = max(scores)
        hits = [d for d, score in zip(hits, scores, strict=True) if score == best]
    return hits


def _ranges(defs: list[DefinitionSpan]) -> list[Range]:
    return list(dict.fromkeys((d.start, d.end) for d in defs))  # once each, in order


def _boundary_pattern(norm: str) -> re.Pattern[str]:
    body = re.escape(norm).replace(r"\ ", r"\s*")
    head = r"(?<![\w$])" if norm[0].isalnum() or norm[0] in "_$" else ""
    tail = r"(?![\w$])" if norm[-1].isalnum() or norm[-1] in "_$" else ""
    return re.compile(head + body + tail)


def _names_it(norm: str, words: set[str], name: str) -> bool:
    """Does the anchor contain the definition's name as a word (or a qualified name)?"""
    return name in words or name.rsplit("::", 1)[-1] in words or ("::" in name and name in norm)


def main_name(norm: str) -> tuple[str | None, str | None]:
    """The identifier an anchor names, and the kind its keyword implies."""
    words = _IDENT.findall(norm)
    kind = None
    for w in words:
        if w in _TYPE_WORDS:
            kind = "type"
            break
        if w in _FUNCTION_WORDS:
            kind = "function"
            break
    for m in re.finditer(r"([A-Za-z_$][\w$]*)\s*\(", norm):
        if m.group(1) not in _KEYWORDS:
            return m.group(1), kind or "function"
    names = [w for w in words if w not in _KEYWORDS]
    if "(" in norm:
        names = [w for w in _IDENT.findall(norm.split("(", 1)[0]) if w not in _KEYWORDS] or names
    if not names:
        return None, kind
    return (names[0] if kind == "type" else names[-1]), kind


def _line_ranges(anchor: str, text: str, lines: list[str], language: str | None,
                 scope: list[Range] | None) -> list[Range]:
    options = {anchor, anchor.rstrip(":{").rstrip()}
    options.discard("")
    if not options:
        return []
    tree = parse_text(language, text) if language else None
    if not lines:
        lines.extend(text.split("\n"))
    found: list[Range] = []
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or not any(stripped.startswith(o) for o in options):
            continue
        end = _node_end(tree, i, line[:len(line) - len(line.lstrip())]) if tree else None
        if end is None:
            end = _block_end(lines, i)
        if _inside(i, end, scope):
            found.append((i, end))
    return found


def _node_end(tree: tree_sitter.Tree, row: int, indent: str) -> int | None:
    """The last line of the node starting at ``row``'s first token (through wrappers)."""
    column = len(indent.encode("utf-8"))
    node = tree.root_node.descendant_for_point_range((row, column), (row, column))
    if node is None or node.start_point != (row, column):
        return None
    while (node.parent is not None and node.parent.parent is not None
           and node.parent.start_point == node.start_point
           and not _is_sequence(node.parent)):  # climb wrappers, stop below a statement list
        node = node.parent
    return last_row(node)


def _is_sequence(node: tree_sitter.Node) -> bool:
    """A list of siblings (a block, a mapping): children stacked at one column."""
    if node.named_child_count < 2:
        return False
    first, second = node.named_child(0), node.named_child(1)
    if first is None or second is None or first.start_point != node.start_point:
        return False
    return (second.start_point.row > first.start_point.row
            and second.start_point.column == first.start_point.column)


def _block_end(lines: list[str], start: int) -> int:
    indent = len(lines[start]) - len(lines[start].lstrip())
    end = start
    for j in range(start + 1, len(lines)):
        line = lines[j]
        if not line.strip():
            continue
        depth = len(line) - len(line.lstrip())
        if depth > indent:
            end = j
            continue
        if depth == indent and line.strip().startswith(_CLOSERS):
            end = j
        break
    return end
