"""The repo map of a turn: its share of the window, the outline that fits, how it travels.
Each cut leaves a sentence in ``trimmed``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from spark_cli.protocol.tokens import count_tokens
from spark_cli.record import record
from spark_cli.session.context.picks import Pick, identifiers

if TYPE_CHECKING:
    from spark_cli.session.context.index import RepoIndex
    from spark_cli.session.context.rank import Ranked

MAP_HEADER = ("Repository map: signature lines of the most referenced definitions in files "
              "not shown in full here (skipped lines marked ⋮). Ask for a file before "
              "editing it.\n")
MAP_TOKENS = 4_096
MAP_SHARE = 4
"""The map takes at most 1/MAP_SHARE of what may be sent (2/MAP_SHARE with no file)."""
MIN_MAP_TOKENS = 160
"""A map budget smaller than this (a 2k window's) is not worth its header: none is sent."""
MIN_ROOM_TOKENS = 128
"""Less room than this left after the files: no map (a dozen signatures help nobody)."""
MAX_CANDIDATES = 3_000
"""More definitions than this never fit any sane budget."""



@record
class Outline:
    """The repo map as sent, and how much of the repo it shows (the report's ``map``)."""

    text: str
    tokens: int
    files: int
    definitions: int
    available: int
    """Definitions the repo has outside the files sent (what the map chose from)."""


NO_MAP = Outline("", 0, 0, 0, 0)


def repo_map(index: RepoIndex, picks: Sequence[Pick], instruction: str, *,
             window: int, cap: int, room: int, trimmed: list[str]) -> Outline:
    """The map in its share and the ``room`` left, ranked toward ``picks`` (or ``NO_MAP``)."""
    share = 1 if any(p.fresh for p in picks) else 2  # doubled when no file is sent
    wanted = min(share * MAP_TOKENS, share * cap // MAP_SHARE)
    if 0 < wanted < MIN_MAP_TOKENS:
        trimmed.append(f"repo map left out: the window ({window:,} tokens) is too "
                       "small for one")
        return NO_MAP
    if wanted <= 0:
        return NO_MAP
    space = min(wanted, room) - count_tokens(map_section("")) - 2
    ranked = _ranked(index, picks, instruction)
    if not ranked:
        return NO_MAP
    if space < MIN_ROOM_TOKENS:
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
    """The header line, then the outline in a ``~~~`` fence (file-block parsers skip it)."""
    fence = "~" * max(3, 1 + max((len(r) for r in text.split("\n") if set(r) == {"~"}),
                                 default=0))
    return f"{MAP_HEADER}{fence}\n{text}{fence}\n"


def render(ranked: Sequence[Ranked]) -> str:
    """Per file (best first) its path, then its signature lines in order, ``⋮`` at each gap."""
    by_file: dict[str, list[Ranked]] = {}
    for item in ranked:
        by_file.setdefault(item.path, []).append(item)
    out: list[str] = []
    for path, items in by_file.items():
        out.append(f"{path}:\n")
        last = -2
        for item in sorted(items, key=lambda r: r.definition.line):
            line = item.definition.line
            if line == last:  # two names on one line (``a = b = 1``): show it once
                continue
            if last >= 0 and line > last + 1:
                out.append("⋮\n")
            out.append(f"│{item.definition.signature}\n")
            last = line
    return "".join(out)


def fit(ranked: Sequence[Ranked], budget: int) -> Outline:
    """The most definitions (best first) whose outline stays within ``budget`` tokens."""
    if budget <= 0 or not ranked:
        return Outline("", 0, 0, 0, len(ranked))
    # a line break starts a token piece: the outline costs the sum of its lines (+1 for ⋮)
    spent = 0
    files: set[str] = set()
    n = 0
    for item in ranked[:MAX_CANDIDATES]:
        cost = count_tokens("\n│" + item.definition.signature) + 1
        if item.path not in files:
            cost += count_tokens("\n" + item.path + ":")
        if spent + cost + 1 > budget:
            break
        spent += cost
        files.add(item.path)
        n += 1
    text = render(ranked[:n])
    tokens = count_tokens(text)
    while n > 0 and tokens > budget:
        n -= 1
        text = render(ranked[:n])
        tokens = count_tokens(text)
    return Outline(text, tokens, len({r.path for r in ranked[:n]}), n, len(ranked))
