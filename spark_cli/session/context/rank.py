"""Which definitions matter most: a personalised PageRank over the file reference graph."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from operator import itemgetter

from spark_cli.record import record
from spark_cli.session.context.tags import Definition, FileTags

DAMPING = 0.85
MAX_ITERATIONS = 40
TOLERANCE = 1e-5
_SHARED_BY = 2
TOO_COMMON = 5
"""A name defined in more files than this says nothing about where a use points: no edges."""


@record
class Ranked:
    """A definition of the repo map with its score."""

    path: str
    definition: Definition
    score: float


def name_weight(name: str, mentioned: Collection[str], definers: int) -> float:
    """How much an edge through ``name`` counts (before the number of uses)."""
    weight = 1.0
    if name in mentioned:
        weight *= 10
    specific = ("_" in name.strip("_")) or (name[:1].islower() and any(c.isupper() for c in name))
    if specific or len(name) >= 8:
        weight *= 10
    if name.startswith("_") or len(name) < 3:
        weight *= 0.1
    if definers > _SHARED_BY:
        weight *= 0.1
    return weight


def definers_of(tags: Mapping[str, FileTags]) -> dict[str, list[str]]:
    """name -> the files that define it (in ``tags``' order)."""
    table: dict[str, list[str]] = {}
    for path, file_tags in tags.items():
        for name in {d.name for d in file_tags.definitions}:
            table.setdefault(name, []).append(path)
    return table


def pagerank(edges: Mapping[str, Mapping[str, float]], nodes: Sequence[str],
             personal: Mapping[str, float]) -> dict[str, float]:
    """Rank of every node over weighted ``edges``; the walk restarts at ``personal`` (else all)."""
    if not nodes:
        return {}
    at = {n: i for i, n in enumerate(nodes)}
    total = sum(personal.get(n, 0.0) for n in nodes)
    restart = [personal.get(n, 0.0) / total if total > 0 else 1.0 / len(nodes) for n in nodes]
    links = [(at[name], [(at[d], w / out) for d, w in dsts.items() if d in at])
             for name, dsts in edges.items() if (out := sum(dsts.values())) > 0 and name in at]
    lonely = sorted(set(range(len(nodes))) - {i for i, _ in links})
    rank = list(restart)
    for _ in range(MAX_ITERATIONS):
        spread = 1 - DAMPING + DAMPING * sum(rank[i] for i in lonely)
        nxt = [spread * r for r in restart]
        for origin, outs in links:
            share = DAMPING * rank[origin]
            for dst, weight in outs:
                nxt[dst] += share * weight
        delta = sum(abs(a - b) for a, b in zip(nxt, rank, strict=True))
        rank = nxt
        if delta < TOLERANCE:
            break
    return dict(zip(nodes, rank, strict=True))


def rank_definitions(tags: Mapping[str, FileTags], *, chat: Collection[str] = (),
                     named: Collection[str] = (), mentioned: Collection[str] = (),
                     limit: int | None = None) -> list[Ranked]:
    """The definitions outside ``chat``, best first (as aider's repo map): a file that uses a
    name another defines has an edge to it, ``name_weight * sqrt(uses)``; the walk restarts
    at ``chat`` and ``named``, and each file's rank flows along its edges to the definitions.
    """
    definers = definers_of(tags)
    chat_set, mentioned_set = set(chat), set(mentioned)
    # per (src) -> (dst, name) -> weight; and per src -> dst summed, for the walk
    flows: dict[str, dict[tuple[str, str], float]] = {}
    edges: dict[str, dict[str, float]] = {}
    for src, file_tags in tags.items():
        for name, uses in file_tags.references.items():
            where = definers.get(name)
            if where is None or len(where) > TOO_COMMON:
                continue
            weight = name_weight(name, mentioned_set, len(where)) * math.sqrt(uses)
            for dst in where:
                if dst == src:
                    continue
                flows.setdefault(src, {})[(dst, name)] = weight
                to = edges.setdefault(src, {})
                to[dst] = to.get(dst, 0.0) + weight
    nodes = sorted(tags)
    personal = {p: 1.0 for p in (*chat_set, *named) if p in tags}
    rank = pagerank(edges, nodes, personal)
    scores: dict[tuple[str, str], float] = {}
    for src, targets in flows.items():
        total = sum(targets.values())
        for key, weight in targets.items():
            scores[key] = scores.get(key, 0.0) + rank[src] * weight / total
    scored: list[tuple[float, str, Definition]] = []
    for path in nodes:
        if path in chat_set:
            continue
        definitions = tags[path].definitions
        floor = 1e-3 * rank[path] / max(1, len(definitions))
        scored.extend((scores.get((path, d.name), 0.0) + floor, path, d) for d in definitions)
    scored.sort(key=itemgetter(0), reverse=True)  # stable: ties stay in (path, line) order
    best = scored[:limit] if limit is not None else scored
    return [Ranked(path, definition, score) for score, path, definition in best]
