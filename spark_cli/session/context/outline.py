"""The repo map as text: the best-ranked definitions, grouped by file, within a token budget.

Pure. The top ``n`` ranked definitions are grouped by file (files in the
order their best definition ranks, definitions in line order) and rendered as
the file's path and then each definition's signature line, indentation kept
so nesting shows; ``⋮`` marks skipped lines between two of them::

    src/shop/pricing.py:
    │def apply_discount(price, percent):
    ⋮
    │def with_tax(price):

The largest ``n`` whose text fits the budget is found by bisection (the text
grows with ``n``). Counting uses ``protocol.tokens`` like the rest of the
request, so the map never pushes a request past the window.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from spark_cli.protocol.tokens import count_tokens
from spark_cli.session.context.rank import Ranked

MAX_CANDIDATES = 3_000
"""More definitions than this never fit any sane budget; bisect over these only."""


@dataclass(frozen=True, slots=True)
class Outline:
    text: str
    """The map ("" when nothing fits)."""
    tokens: int
    files: int
    definitions: int
    """Definitions shown."""
    available: int
    """Definitions there were to show."""


def render(ranked: Sequence[Ranked]) -> str:
    """The outline text of exactly these definitions."""
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


def fit(ranked: Sequence[Ranked], budget: int,
        count: Callable[[str], int] = count_tokens) -> Outline:
    """The most definitions (best first) whose outline stays within ``budget`` tokens."""
    candidates = ranked[:MAX_CANDIDATES]
    best_text, best_tokens, best_n = "", 0, 0
    low, high = 1, len(candidates)
    while low <= high and budget > 0:
        mid = (low + high) // 2
        text = render(candidates[:mid])
        tokens = count(text)
        if tokens <= budget:
            best_text, best_tokens, best_n = text, tokens, mid
            low = mid + 1
        else:
            high = mid - 1
    files = len({r.path for r in candidates[:best_n]})
    return Outline(best_text, best_tokens, files, best_n, len(ranked))
