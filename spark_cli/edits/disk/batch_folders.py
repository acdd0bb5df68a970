"""The undo journal's batch folders, known by their names ``YYYYmmddTHHMMSS-xxxxxx``: names
sort as batches do by ``(time, id)`` except within one second, so a prune reads
manifests only when such a second straddles its cut."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

BATCH_NAME = re.compile(r"[0-9]{8}T[0-9]{6}-[0-9a-f]{6}")
_SECOND = 15  # len("YYYYmmddTHHMMSS"): the part of a name that is the batch's second


def batch_names(undo_root: Path) -> list[str]:
    """The batch folders in ``undo_root`` (directories named as batch ids), newest first."""
    try:
        with os.scandir(undo_root) as entries:
            names = [entry.name for entry in entries
                     if BATCH_NAME.fullmatch(entry.name) and entry.is_dir(follow_symlinks=False)]
    except OSError:
        return []
    names.sort(reverse=True)
    return names


def to_prune(names: list[str], keep: int, time_of: Callable[[str], float | None]) -> list[str]:
    """The batches beyond the newest ``keep`` by ``(time, id)``; ``time_of`` is asked only
    within the second the cut falls in."""
    if len(names) <= keep:
        return []
    if keep <= 0:
        return list(names)
    second = names[keep][:_SECOND]
    if names[keep - 1][:_SECOND] != second:
        return names[keep:]
    first = keep - 1
    while first > 0 and names[first - 1][:_SECOND] == second:
        first -= 1
    last = keep + 1
    while last < len(names) and names[last][:_SECOND] == second:
        last += 1

    def key(name: str) -> tuple[float, str]:
        recorded = time_of(name)
        return (float("-inf") if recorded is None else recorded, name)

    ordered = names[:first] + sorted(names[first:last], key=key, reverse=True) + names[last:]
    return ordered[keep:]
