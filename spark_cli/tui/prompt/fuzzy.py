"""Fuzzy matching of repo paths for the ``@`` picker and ``/add``: a query's characters in
order, anywhere in the path.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

LIMIT = 8


class PathMatcher:
    """Fuzzy search over ``paths``: ``best(query)`` answers the best ``limit``: the file name
    holding the query, then the path, then scattered; shorter first (paths sorted once, a
    query extending one with few matches searches only those: `spark bench tui --only typing`)."""


    def __init__(self, paths: Sequence[str]) -> None:
        ordered = sorted(paths, key=lambda p: (len(p), p))
        self.paths = ordered
        self._lower = [p.lower() for p in ordered]
        self._name_at = [p.rfind("/") + 1 for p in self._lower]
        self._chars = [frozenset(path) for path in self._lower]
        self._all = range(len(ordered))
        self._narrow: tuple[str, list[int]] | None = None  # a query with all its matches

    def __len__(self) -> int:
        return len(self.paths)

    def best(self, query: str, limit: int = LIMIT) -> list[str]:
        """The best ``limit`` paths for ``query`` (the shortest ones when it is empty)."""
        q = query.lower()
        if not q:
            return self.paths[:limit]
        narrow = self._narrow
        pool: Sequence[int] = narrow[1] if narrow is not None and q.startswith(narrow[0]) \
            else self._all
        found: list[int] = []
        seen: set[int] = set()
        tiers = (self._anywhere(q, pool), self._scattered(q, pool)) if "/" in q else \
            (self._in_name(q, pool), self._anywhere(q, pool), self._scattered(q, pool))
        for tier in tiers:
            for i in tier:
                if i not in seen:
                    seen.add(i)
                    found.append(i)
                    if len(found) == limit:
                        self._narrow = None
                        return [self.paths[j] for j in found]
        self._narrow = (q, sorted(found))  # every match: a longer query searches only these
        return [self.paths[j] for j in found]

    def _in_name(self, q: str, pool: Sequence[int]) -> Iterator[int]:
        lower, name_at = self._lower, self._name_at
        return (i for i in pool if lower[i].rfind(q) >= name_at[i])

    def _anywhere(self, q: str, pool: Sequence[int]) -> Iterator[int]:
        lower = self._lower
        return (i for i in pool if q in lower[i])

    def _scattered(self, q: str, pool: Sequence[int]) -> Iterator[int]:
        chars, lower = self._chars, self._lower
        needed = frozenset(q)
        search = re.compile(".*?".join(map(re.escape, q))).search
        return (i for i in pool if needed <= chars[i] and search(lower[i]))
