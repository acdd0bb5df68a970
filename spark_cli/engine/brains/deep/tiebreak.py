"""The deep brain's best-of tiebreak (``--judge deep``): the candidate whose diff changes the
fewest characters, the lowest number on a tie (a fixed rule: reproducible offline)."""

from __future__ import annotations

import re
from collections.abc import Iterator

HEAD = "Best-of tiebreak"
_CANDIDATE = re.compile(r"^Candidate (\d+):\n```diff\n(.*?)^```", re.M | re.S)


def _changed(diff: str) -> int:
    return sum(len(line) - 1 for line in diff.splitlines()
               if line[:1] in "+-" and not line.startswith(("+++ ", "--- ")))


def tiebreak(prompt: str) -> Iterator[str]:
    sizes = [(_changed(diff), int(number)) for number, diff in _CANDIDATE.findall(prompt)]
    if not sizes:
        yield "I found no candidate diffs to choose between.\n"
        return
    size, number = min(sizes)
    yield f"Candidate {number}: the smallest change, {size} characters changed.\n"
