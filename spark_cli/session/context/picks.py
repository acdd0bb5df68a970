"""The files a turn sends and the map, in the order a turn chooses them; how they travel.

:mod:`.assemble` decides what fits the window; this module, top to bottom:
one chosen file and its cost (:func:`pick`: a file the model already has
unchanged, ``known`` holding its sha256, is not ``fresh``: not re-sent, 0
tokens); the files the prompt names and the files that mention a symbol it
names (:func:`candidates`); the repo map in the room left (:func:`repo_map`,
:func:`smaller_map`); the user message as sent and as remembered
(:func:`compose`, :func:`map_section`).

The index and the scan are handed in by the caller, who imports them only
when the repo holds a file besides those sent: a pipe's private temp
dir (or a one-file repo) never loads tree-sitter, the index or the ranking.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from spark_cli.protocol.files import FileBlock, render_file_block, render_file_blocks
from spark_cli.protocol.tokens import count_tokens
from spark_cli.record import record
from spark_cli.session.building.targets import RequestError, TargetFile, read_target
from spark_cli.session.context.mentions import identifiers, named_files, symbols
from spark_cli.session.context.outline import MAX_CANDIDATES, Outline, fit
from spark_cli.session.context.sources import language_for_path

if TYPE_CHECKING:
    from spark_cli.session.context.index import RepoIndex
    from spark_cli.session.context.rank import Ranked
    from spark_cli.session.context.scan import RepoFiles

MAP_HEADER = ("Repository map: signature lines of the most referenced definitions in files "
              "not shown in full here (skipped lines marked ⋮). Ask for a file before "
              "editing it.\n")
ADDED = "added"
NAMED = "named in the prompt"
MENTIONS = "mentions "
"""The ``why`` of a file found through a symbol: ``mentions total_price``."""


MAX_REFERENCING = 30
MIN_MAP_TOKENS = 128
"""Less room than this: no map at all (a dozen signatures help nobody)."""
NO_MAP = Outline("", 0, 0, 0, 0)
INDEX_SECONDS = 2.0
"""Reading and parsing time one turn may spend on files new to the index (a first build
in a huge repo); the rest waits for later turns."""


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


def repo_map(index: RepoIndex, picks: Sequence[Pick], instruction: str, wanted: int,
             room: int, trimmed: list[str]) -> Outline:
    """The map in ``min(wanted, room)`` tokens (header included), ranked toward ``picks``."""
    space = min(wanted, room) - count_tokens(map_section("")) - 2
    ranked = _ranked(index, picks, instruction)
    if not ranked:
        return NO_MAP
    if space < MIN_MAP_TOKENS:
        trimmed.append(f"repo map left out: only {max(0, room):,} tokens of the window are "
                       "left after the files")
        return Outline("", 0, 0, 0, len(ranked))
    outline = fit(ranked, space)
    if room < wanted and outline.definitions < outline.available:
        trimmed.append(f"repo map cut to {space:,} tokens (of {wanted:,}) to fit the window: "
                       f"{outline.definitions:,} of {outline.available:,} definitions shown")
    return outline


def smaller_map(index: RepoIndex, picks: Sequence[Pick], instruction: str, outline: Outline,
                excess: int) -> Outline:
    """The map again, ``excess`` (+ a margin) tokens smaller; empty when nothing is left."""
    if outline.tokens <= excess + 16:
        return Outline("", 0, 0, 0, outline.available)
    return fit(_ranked(index, picks, instruction), outline.tokens - excess - 16)


def _ranked(index: RepoIndex, picks: Sequence[Pick], instruction: str) -> list[Ranked]:
    return index.ranked(chat={p.target.path for p in picks},
                        named={p.target.path for p in picks if not p.is_reference},
                        mentioned=identifiers(instruction), limit=MAX_CANDIDATES)


def map_section(text: str) -> str:
    """The map as it travels: the header line, then the outline in a ``~~~`` fence (a
    fence that file-block parsers skip and that never looks like a file block)."""
    fence = "~" * max(3, 1 + max((len(r) for r in text.split("\n") if set(r) == {"~"}),
                                 default=0))
    return f"{MAP_HEADER}{fence}\n{text}{fence}\n"


def compose(picks: Sequence[Pick], instruction: str, outline: str) -> tuple[str, str]:
    """(the user message as sent, the same as remembered: without the map)."""
    blocks = [block_of(p.target) for p in picks if p.fresh]
    remembered = instruction.strip() + "\n"
    if blocks:
        remembered = render_file_blocks(blocks) + "\n" + remembered
    return (map_section(outline) + "\n" + remembered if outline else remembered), remembered
