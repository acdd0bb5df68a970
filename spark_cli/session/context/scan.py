"""The repo's files as the repo map sees them: what ``git`` would track, minus what is not code.

``scan(root)`` is the one repo walk (:mod:`spark_cli.tools.repo_files`: ``.gitignore``
files, nested ones and ``.git/info/exclude``; never ``.git/``, ``.spark/`` or
symlinks) with the map's filter: no vendored or generated folders (``VENDORED``),
no files with a binary extension, none over ``MAX_FILE_BYTES`` (generated data,
lock files of megabytes), at most ``MAX_FILES`` files (``truncated`` says when the
walk stopped early). ``ignore_rules(root).ignored(rel)`` answers, for one path,
which rule leaves it out (the ``/add`` refusal message), or ``None``.
"""

from __future__ import annotations

from pathlib import Path

from spark_cli.tools.repo_files import (
    BINARY_EXTENSIONS,
    VENDORED,
    RepoFiles,
    WalkFilter,
    ignore_rules,
    walk,
)

MAX_FILES = 20_000
MAX_FILE_BYTES = 512 * 1024
_MAP_FILTER = WalkFilter(skip_dirs=VENDORED, skip_extensions=BINARY_EXTENSIONS,
                         max_bytes=MAX_FILE_BYTES)

__all__ = ["MAX_FILES", "MAX_FILE_BYTES", "VENDORED", "RepoFiles", "ignore_rules", "scan"]


def scan(root: Path, *, max_files: int = MAX_FILES) -> RepoFiles:
    """Every file of the repo at ``root`` worth showing a model (see the module docstring)."""
    return walk(root, only=_MAP_FILTER, limit=max_files)
