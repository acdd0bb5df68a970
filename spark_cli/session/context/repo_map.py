"""The repo map of a turn: its share of the window, the outline that fits, how it travels.

The map is ranked toward the files a turn sends and the prompt's identifiers
(:meth:`RepoIndex.ranked`), laid out by :func:`fit`, and travels as one
header line and a ``~~~`` fence (:func:`map_section`). Its share is ``MAP_TOKENS``
(twice that when no file is sent), at most a quarter of what may be sent
(:func:`map_budget`); what is left of the window after the files may cut it further
(:func:`repo_map`), and :func:`smaller_map` shrinks it when the whole message is
still over the window. Each cut leaves a sentence in ``trimmed``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from spark_cli.protocol.tokens import count_tokens
from spark_cli.session.context.mentions import identifiers
from spark_cli.session.context.report import Outline

if TYPE_CHECKING:
    from spark_cli.session.context.index import RepoIndex
    from spark_cli.session.context.picks import Pick
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
"""Less room than this left after the files: no map at all (a dozen signatures help
nobody)."""
NO_MAP = Outline("", 0, 0, 0, 0)
MAX_CANDIDATES = 3_000
"""More definitions than this never fit any sane budget."""


def map_budget(cap: int, *, files_sent: bool) -> int:
    """The map's share of ``cap`` (what may be sent): ``MAP_TOKENS`` (twice that with no
    file sent), at most a quarter of ``cap`` (half with no file): a 2k window gets a tiny
    map or none (below ``MIN_MAP_TOKENS``)."""
    if files_sent:
        return min(MAP_TOKENS, cap // MAP_SHARE)
    return min(2 * MAP_TOKENS, 2 * cap // MAP_SHARE)


def repo_map(index: RepoIndex, picks: Sequence[Pick], instruction: str, *,
             window: int, cap: int, room: int, trimmed: list[str]) -> Outline:
    """The map in its share and in the ``room`` the files left, ranked toward ``picks``;
    ``NO_MAP`` when it is not worth sending."""
    wanted = map_budget(cap, files_sent=any(p.fresh for p in picks))
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
    """The map as it travels: the header line, then the outline in a ``~~~`` fence (a
    fence that file-block parsers skip and that never looks like a file block)."""
    fence = "~" * max(3, 1 + max((len(r) for r in text.split("\n") if set(r) == {"~"}),
                                 default=0))
    return f"{MAP_HEADER}{fence}\n{text}{fence}\n"


def render(ranked: Sequence[Ranked]) -> str:
    """The outline text of exactly these definitions.

    Pure. The top ``n`` ranked definitions are grouped by file (files in the
    order their best definition ranks, definitions in line order) and rendered as
    the file's path and then each definition's signature line, indentation kept
    so nesting shows; ``⋮`` marks skipped lines between two of them::

    src/shop/pricing.py:
    │def apply_discount(price, percent):
    ⋮
    │def with_tax(price):

    How many fit is found from per-line counts (see :func:`fit`) and checked
    on the final text. Counting uses ``protocol.tokens`` like the rest of the
    request, so the map never pushes a request past the window."""
    by_file: dict[str, list[Ranked]] = {}
    for item in ranked:
        by_file.setdefault(item.path, []).append(item)
    out: list[str] = []
    for path, items in by_file.items():
        out.append(f"{path}:\n")
        last = -2
        seen: set[int] = set()
        for item in sorted(items, key=lambda r: r.definition.line):
            line = item.definition.line
            if line in seen:  # two names on one line (``a = b = 1``): show it once
                continue
            seen.add(line)
            if last >= 0 and line > last + 1:
                out.append("⋮\n")
            out.append(f"│{item.definition.signature}\n")
            last = line
    return "".join(out)


def fit(ranked: Sequence[Ranked], budget: int) -> Outline:
    """The most definitions (best first) whose outline stays within ``budget`` tokens.

    A line break always starts a new token piece, so the outline's count is the
    sum of its lines' counts: each signature line and each new file's header
    is counted once, plus one token per definition for a possible ``⋮`` line
    (an upper bound). The outline of the ``n`` that bound allows is rendered
    and counted exactly; while that is still over (it never should be), ``n``
    shrinks.
    """
    if budget <= 0 or not ranked:
        return Outline("", 0, 0, 0, len(ranked))
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
