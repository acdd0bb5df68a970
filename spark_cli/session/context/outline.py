"""The repo map as text: the best-ranked definitions, grouped by file, within a token budget."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from spark_cli.protocol.tokens import count_tokens
from spark_cli.record import record
from spark_cli.session.context.rank import Ranked

MAX_CANDIDATES = 3_000
"""More definitions than this never fit any sane budget."""


@record
class Outline:
    """The repo map as sent, and how much of the repo it shows."""

    text: str
    """The map ("" when nothing fits)."""
    tokens: int
    files: int
    definitions: int
    """Definitions shown."""
    available: int
    """Definitions there were to show."""


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


def fit(ranked: Sequence[Ranked], budget: int,
        count: Callable[[str], int] = count_tokens) -> Outline:
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
        cost = count("\n│" + item.definition.signature) + 1
        if item.path not in files:
            cost += count("\n" + item.path + ":")
        if spent + cost + 1 > budget:
            break
        spent += cost
        files.add(item.path)
        n += 1
    text = render(ranked[:n])
    tokens = count(text)
    while n > 0 and tokens > budget:
        n -= 1
        text = render(ranked[:n])
        tokens = count(text)
    return Outline(text, tokens, len({r.path for r in ranked[:n]}), n, len(ranked))
