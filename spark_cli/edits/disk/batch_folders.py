"""The undo journal's batch folders, known by their names: which entries are batches, and
which of them a prune deletes, without reading a manifest in the usual case.

A batch folder is named by its id, ``YYYYmmddTHHMMSS-xxxxxx``: the UTC second the batch
began in (its recorded ``time`` lies in that second; both come from one clock reading) and
6 random hex digits. So names sort the way `journal.history` orders batches, by
``(time, id)``, except among batches begun in the same second: their names sort by the
random part. Only when such a second straddles the cut between kept and pruned batches
does the prune read those few batches' times.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

BATCH_NAME = re.compile(r"[0-9]{8}T[0-9]{6}-[0-9a-f]{6}")
_SECOND = 15  # len("YYYYmmddTHHMMSS"): the part of a name that is the batch's second


def batch_names(undo_root: Path) -> list[str]:
    """The batch folders in ``undo_root``, newest name first: directories (not symlinks)
    named as batch ids; anything else there is not the journal's and is never listed.
    An undo root that is missing or cannot be listed has none."""
    try:
        with os.scandir(undo_root) as entries:
            names = [entry.name for entry in entries
                     if BATCH_NAME.fullmatch(entry.name) and entry.is_dir(follow_symlinks=False)]
    except OSError:
        return []
    names.sort(reverse=True)
    return names


def to_prune(names: list[str], keep: int, time_of: Callable[[str], float | None]) -> list[str]:
    """The batches of ``names`` (newest name first) beyond the newest ``keep`` in
    ``(time, id)`` order, in no promised order of their own. ``time_of`` gives a batch's
    recorded time (None: unreadable); it is asked only about the batches begun in the
    second the cut falls in, and only when that second holds batches on both sides of the
    cut. An unreadable one sorts before the others of its second, so it goes first."""
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
