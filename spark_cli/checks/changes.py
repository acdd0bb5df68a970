"""What a command changed in the repo: a cheap before/after stamp of its files.

`stamp(root)` walks the repo as spark's other tools do (`spark_cli.tools.repo_files`:
``.gitignore`` honoured, vendored and cache folders skipped) and keeps each file's
modification time and size; `changed(before, after)` names the files added, removed or
modified, sorted, or None when either walk stopped at ``MAX_FILES`` (spark cannot tell).
Files a command changes are not in the undo journal; the session says so with this.
"""

from __future__ import annotations

from pathlib import Path

from spark_cli.record import record
from spark_cli.tools.repo_files import WalkFilter, walk

MAX_FILES = 50_000
_EVERY_EXTENSION = WalkFilter(skip_extensions=frozenset())


@record
class RepoStamps:
    """The repo's files as ``rel -> (mtime_ns, size)``; ``complete`` False past the cap."""

    files: dict[str, tuple[int, int]]
    complete: bool


def stamp(root: Path, *, limit: int = MAX_FILES) -> RepoStamps:
    """The repo's files and their stamps now (at most ``limit`` of them)."""
    found = walk(root, only=_EVERY_EXTENSION, limit=limit)
    return RepoStamps({f.rel: (f.mtime_ns, f.size) for f in found.files}, not found.truncated)


def changed(before: RepoStamps, after: RepoStamps) -> tuple[str, ...] | None:
    """The files added, removed or modified between the stamps, or None (cannot tell)."""
    if not (before.complete and after.complete):
        return None
    keys = before.files.keys() | after.files.keys()
    return tuple(sorted(k for k in keys if before.files.get(k) != after.files.get(k)))
