"""The files a turn sends, in the order it chooses them: those given, those the prompt names (a
path, a unique tail or file name; an ambiguous one names nothing), those that mention a symbol
it is about; and what each costs (a file the model has unchanged is not ``fresh``: 0 tokens)."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from spark_cli.edits.lang.grammars import language_for_path
from spark_cli.protocol.files import FileBlock, render_file_block
from spark_cli.protocol.tokens import count_tokens
from spark_cli.record import record
from spark_cli.session.context.targets import RequestError, TargetFile, read_target

if TYPE_CHECKING:
    from spark_cli.session.context.index import RepoIndex
    from spark_cli.tools.repo_files import RepoFiles

NAMED = "named in the prompt"
MENTIONS = "mentions "
"""The ``why`` of a file found through a symbol: ``mentions total_price``."""
MAX_REFERENCING = 30
BLOCK_SLACK = 4
"""Tokens a file block may add at its joins (separators, merged pieces)."""
INDEX_SECONDS = 2.0
"""Seconds a turn may spend reading files new to the index; the rest waits for later turns."""
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
class Pick:
    """A file chosen for the context, and why."""

    target: TargetFile
    why: str
    tokens: int
    fresh: bool

    @property
    def is_reference(self) -> bool:
        return self.why.startswith(MENTIONS)


def pick(target: TargetFile, why: str, known: Mapping[str, str]) -> Pick:
    fresh = known.get(target.path) != target.sha256
    tokens = count_tokens(render_file_block(block_of(target))) if fresh else 0
    return Pick(target, why, tokens, fresh)


def block_of(target: TargetFile) -> FileBlock:
    return FileBlock(target.path, target.text, language_for_path(target.path) or "")


def candidates(root: Path, repo: RepoFiles, index: RepoIndex, instruction: str,
               in_chat: set[str], known: Mapping[str, str], notes: list[str]) -> list[Pick]:
    """Files the prompt names, then files that mention a symbol it names (definers first)."""
    if repo.truncated:
        notes.append(f"the walk stopped at {len(repo.files):,} files: the repo map and the "
                     "search for files that mention a symbol cover those only")
    named = named_files(instruction, repo.paths())
    for said, could in named.ambiguous:
        notes.append(f"{said} could be {' or '.join(could)}: name the path to send it")
    found = _read(root, [(p, NAMED) for p in named.found if p not in in_chat], known, notes)
    index.refresh(repo, seconds=INDEX_SECONDS, first=sorted(in_chat))
    if index.pending:
        notes.append(f"the repo map covers {len(index.tags):,} of "
                     f"{len(index.tags) + len(index.pending):,} files so far; the rest are read "
                     "over the next turns")
    taken = in_chat | set(named.found)
    return found + _read(root, _referencing(index, instruction, taken, notes), known, notes)


def _referencing(index: RepoIndex, instruction: str, taken: set[str],
                 notes: list[str]) -> list[tuple[str, str]]:
    definers = index.definers()
    found: dict[str, str] = {}
    for symbol in symbols(instruction, definers):
        homes = definers.get(symbol, [])
        where = [*homes, *(p for p in index.mentioning(symbol) if p not in homes)]
        fresh = [p for p in where if p not in taken and p not in found]
        room = MAX_REFERENCING - len(found)
        for path in fresh[:room]:
            found[path] = MENTIONS + symbol
        if len(fresh) > room:
            notes.append(f"{len(fresh) - room} more files mention {symbol} and were not sent "
                         f"(at most {MAX_REFERENCING} such files per turn)")
    return list(found.items())


def _read(root: Path, wanted: Sequence[tuple[str, str]], known: Mapping[str, str],
          notes: list[str]) -> list[Pick]:
    picks: list[Pick] = []
    for path, why in wanted:
        try:
            picks.append(pick(read_target(root, path), why, known))
        except RequestError as exc:
            why_not = exc.message.removesuffix("; nothing was sent")
            notes.append(f"{path} ({why}) not sent: {why_not}")
    return picks


def take_extras(picks: list[Pick], found: Sequence[Pick], room: int,
                trimmed: list[str]) -> int:
    """Adds the extras that fit in ``room`` (named ones first) to ``picks``; the room left."""
    for extra in sorted(found, key=lambda p: p.why != NAMED):
        cost = extra.tokens + BLOCK_SLACK if extra.fresh else 0
        if cost <= room:
            picks.append(extra)
            room -= cost
        else:
            trimmed.append(f"{extra.target.path} ({extra.why}) left out: its "
                           f"{extra.tokens:,} tokens do not fit in the {room:,} left of "
                           "the window")
    return room


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
