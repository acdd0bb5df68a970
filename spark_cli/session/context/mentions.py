"""What a prompt names: repo files (a path, a unique tail or a unique file name; an ambiguous
one names nothing) and the symbols it is about (identifiers the repo defines, not plain words).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from spark_cli.record import record

_PATH_RUN = re.compile(r"[\w./-]+")
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_TRIM = ".,;:!?`'\"()[]{}<>"
PLAIN_WORDS = frozenset({
    "a", "an", "the", "this", "that", "these", "those", "it", "its", "to", "of", "in", "on", "at",
    "by", "for", "from", "with", "into", "onto", "as", "and", "or", "not", "no", "is", "are",
    "be", "was", "were", "do", "does", "make", "use", "using", "add", "remove", "delete", "drop",
    "rename", "change", "update", "fix", "move", "replace", "insert", "write", "create", "new",
    "old", "call", "calls", "called", "file", "files", "function", "functions", "method",
    "methods", "class", "classes", "test", "tests", "code", "line", "lines", "name", "names",
    "all", "every", "each", "so", "then", "please", "can", "could", "should", "would", "will",
    "just", "also", "only", "now", "here", "there", "where", "what", "which", "when", "why",
    "how", "if", "else", "return", "import", "type", "value", "values", "list", "set", "get",
    "run", "main", "self", "cls", "print", "log", "console", "debug", "docstring", "comment",
    "docs",
})
"""Instruction words that never count as symbols, even when a repo defines them."""


@record
class NamedFiles:
    """The repo files a prompt names."""

    found: tuple[str, ...]
    """Repo paths the prompt names, in the order it names them."""
    ambiguous: tuple[tuple[str, tuple[str, ...]], ...]
    """(what the prompt said, the files it could mean) for names that match several."""


def named_files(text: str, repo_files: Sequence[str]) -> NamedFiles:
    """The repo files ``text`` names: runs of path characters with a ``.`` or ``/``."""
    exact = set(repo_files)
    by_name: dict[str, list[str]] = {}
    for path in repo_files:
        by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    found: list[str] = []
    ambiguous: list[tuple[str, tuple[str, ...]]] = []
    for run in _PATH_RUN.findall(text):
        token = run.rstrip(_TRIM).lstrip(_TRIM.replace(".", "")).removeprefix("./")
        if "." not in token and "/" not in token:
            continue
        if token in exact:
            hits = [token]
        else:
            base = token.rsplit("/", 1)[-1]
            hits = [p for p in by_name.get(base, ()) if "/" not in token
                    or p.endswith("/" + token)]
        if len(hits) == 1:
            if hits[0] not in found:
                found.append(hits[0])
        elif hits and all(token != a for a, _ in ambiguous):
            ambiguous.append((token, tuple(sorted(hits))))
    return NamedFiles(tuple(found), tuple(ambiguous))


def identifiers(text: str) -> list[str]:
    """Identifier-shaped words of ``text``, first occurrence order, no repeats."""
    return list(dict.fromkeys(_IDENT.findall(text)))


def symbols(text: str, defined: Collection[str]) -> list[str]:
    """The identifiers of ``text`` that ``defined`` holds and that are not plain words."""
    return [word for word in identifiers(text)
            if word in defined and word.lower() not in PLAIN_WORDS and len(word) > 1]
