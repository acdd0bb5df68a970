"""One file's tags: the definitions tree-sitter finds, and the identifiers the file uses.

Definitions come from the grammar wheel's ``TAGS_QUERY`` (the queries GitHub's
code navigation uses): every match with a ``@definition.<kind>`` capture gives
its ``@name``, its kind and the first line of the definition as its
signature. TypeScript and TSX run the JavaScript query too (their own covers
only what JavaScript lacks), as the tags tooling does.

References, for the ranking, are the query's ``@reference`` captures (calls,
class and type uses) with their counts; for a language whose query has none
(C, C++) or no query at all, every identifier-shaped word counts instead (as
aider falls back to its lexer).

``words`` is every identifier-shaped word of the file (comments and strings
too), space-separated with a space at each end: "which files so much as
mention ``total_price``" is one substring test per file (``mentions``). The
query's captures are too narrow for that (the Python query sees no imports),
and a rename must reach every file that imports the name.
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

from spark_cli.record import record
from spark_cli.session.context.sources import get_language, get_parser, tags_query_source

if TYPE_CHECKING:
    import tree_sitter

WORD = re.compile(r"[A-Za-z_$][\w$]*")
MAX_SIGNATURE = 120
"""Characters of a signature line kept in the map (longer lines end with an ellipsis)."""
_QUERY_PARTS: dict[str, tuple[str, ...]] = {
    "typescript": ("javascript", "typescript"),
    "tsx": ("javascript", "tsx"),
}


@record
class Definition:
    """One definition in a file (a function, a class ...) and its line."""

    name: str
    kind: str
    """``function``, ``class``, ``method``, ``constant``, ``type``, ``module`` ..."""
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
def _query(lang: str) -> tree_sitter.Query | None:
    import tree_sitter

    parts = _QUERY_PARTS.get(lang, (lang,))
    source = "\n".join(_own_source(part) for part in parts)
    if not source.strip():
        return None
    return tree_sitter.Query(get_language(lang), source)


def _own_source(lang: str) -> str:
    try:
        return tags_query_source(lang)
    except (KeyError, ImportError):
        return ""


def has_tags(lang: str | None) -> bool:
    """Whether ``lang`` has a tags query here (so its files can define things)."""
    return lang is not None and bool(_own_source(_QUERY_PARTS.get(lang, (lang,))[0]))


def word_counts(text: str) -> dict[str, int]:
    """Identifier-shaped words in ``text`` with their counts."""
    counts: dict[str, int] = {}
    for word in WORD.findall(text):
        counts[word] = counts.get(word, 0) + 1
    return counts


def extract(text: str, lang: str | None) -> FileTags:
    """The tags of one file's ``text`` in language ``lang`` (``None``: words only)."""
    counts = word_counts(text)
    words = " " + " ".join(counts) + " "
    query = _query(lang) if lang is not None and has_tags(lang) else None
    if query is None:
        return FileTags((), counts, words)
    import tree_sitter

    data = text.encode("utf-8", "surrogatepass")
    tree = get_parser(lang).parse(data)
    lines = text.split("\n")
    found: dict[tuple[int, str], Definition] = {}
    refs: dict[str, int] = {}
    for _pattern, captures in tree_sitter.QueryCursor(query).matches(tree.root_node):
        names = captures.get("name")
        if not names:
            continue
        name_node = names[0]
        name = data[name_node.start_byte:name_node.end_byte].decode("utf-8", "replace")
        for capture, nodes in captures.items():
            if capture.startswith("reference."):
                refs[name] = refs.get(name, 0) + 1
                break
            if not capture.startswith("definition.") or not nodes:
                continue
            row = nodes[0].start_point.row
            if (row, name) not in found and WORD.fullmatch(name):
                found[(row, name)] = Definition(name, capture[len("definition."):], row,
                                                _signature(lines[row] if row < len(lines) else ""))
    definitions = tuple(sorted(found.values(), key=lambda d: (d.line, d.name)))
    return FileTags(definitions, refs if _has_references(lang) else counts, words)


@cache
def _has_references(lang: str) -> bool:
    return any("@reference." in _own_source(part) for part in _QUERY_PARTS.get(lang, (lang,)))


def _signature(line: str) -> str:
    line = line.rstrip()
    return line if len(line) <= MAX_SIGNATURE else line[:MAX_SIGNATURE - 1] + "…"
