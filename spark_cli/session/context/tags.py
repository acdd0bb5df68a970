"""One file's tags: its definitions (each with its first line as signature), the identifiers
it uses (the tags query's ``@reference`` captures, else every word, as aider's lexer) and its
``words`` (one substring test tells whether it mentions a name at all).
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache
from typing import TYPE_CHECKING

from spark_cli.edits.lang.definitions import definition_nodes, has_definitions, name_text
from spark_cli.edits.lang.grammars import get_language, get_parser, tags_query_source
from spark_cli.record import record

if TYPE_CHECKING:
    import tree_sitter

WORD = re.compile(r"[A-Za-z_$][\w$]*")
_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|;[^\n]*|[()\[\]]')
"""A tags query's strings, comments and brackets: enough to find its top-level patterns."""
MAX_SIGNATURE = 120
"""Characters of a signature line kept in the map (longer lines end with an ellipsis)."""
_QUERY_PARTS: dict[str, tuple[str, ...]] = {
    "typescript": ("javascript", "typescript"),
    "tsx": ("javascript", "tsx"),
}


@record
class Definition:
    """One definition in a file (a function, a type, a constant) and its line."""

    name: str
    kind: str
    """``function``, ``type`` or ``constant``."""
    line: int
    """0-based line of the definition's start."""
    signature: str
    """That line, right-stripped (indentation kept, so nesting shows)."""


@record
class FileTags:
    """A file's definitions and the identifiers it uses."""

    definitions: tuple[Definition, ...]
    references: dict[str, int]
    """identifier -> how many times the file uses it (see the module docstring)."""
    words: str = " "
    """Every identifier-shaped word once, as `` a b c ``."""

    def mentions(self, name: str) -> bool:
        return f" {name} " in self.words


@cache
def _references(lang: str) -> tree_sitter.Query | None:
    """The wheels' tags query for ``lang``, its reference patterns only (None: it has none)."""
    import tree_sitter  # deferred: launch -> request

    source = "\n".join(_reference_patterns(_own_source(part))
                       for part in _QUERY_PARTS.get(lang, (lang,)))
    return tree_sitter.Query(get_language(lang), source) if source.strip() else None


def _reference_patterns(source: str) -> str:
    """A tags query's top-level patterns that capture a reference and no definition."""
    starts, depth = [], 0
    for m in _TOKEN.finditer(source):
        if m.group() in ("(", "["):
            starts += [m.start()] if depth == 0 else []
            depth += 1
        elif m.group() in (")", "]"):
            depth -= 1
    pieces = (source[a:b] for a, b in zip(starts, [*starts[1:], len(source)], strict=False))
    return "\n".join(p for p in pieces if "@reference." in p and "@definition." not in p)


def _own_source(lang: str) -> str:
    try:
        return tags_query_source(lang)
    except (KeyError, ImportError):
        return ""


def extract(text: str, lang: str | None) -> FileTags:
    """The tags of one file's ``text`` in language ``lang`` (``None``: words only)."""
    counts = dict(Counter(WORD.findall(text)))
    words = " " + " ".join(counts) + " "
    if lang is None or not has_definitions(lang):
        return FileTags((), counts, words)
    tree = get_parser(lang).parse(text.encode("utf-8", "surrogatepass"))
    lines = text.split("\n")
    found: dict[tuple[int, str], Definition] = {}
    for d in definition_nodes(tree, lang, constants=True):
        name, row = name_text(d).rsplit("::", 1)[-1], d.node.start_point.row
        if (row, name) not in found and WORD.fullmatch(name):
            found[(row, name)] = Definition(name, d.kind, row, _signature(lines[row]))
    definitions = tuple(sorted(found.values(), key=lambda d: (d.line, d.name)))
    query = _references(lang)
    if query is None:
        return FileTags(definitions, counts, words)
    import tree_sitter  # deferred: launch -> request

    refs: dict[str, int] = {}
    for _pattern, captures in tree_sitter.QueryCursor(query).matches(tree.root_node):
        names = captures.get("name")
        if names and any(capture.startswith("reference.") for capture in captures):
            name = (names[0].text or b"").decode("utf-8", "replace")
            refs[name] = refs.get(name, 0) + 1
    return FileTags(definitions, refs, words)


def _signature(line: str) -> str:
    line = line.rstrip()
    return line if len(line) <= MAX_SIGNATURE else line[:MAX_SIGNATURE - 1] + "…"
