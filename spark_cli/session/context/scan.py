"""The repo's files as the repo map sees them: what ``git`` would track, minus vendored
folders, binary extensions and files over ``MAX_FILE_BYTES``, at most ``MAX_FILES``."""

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
    """Every file of the repo at ``root`` worth showing a model."""
    return walk(root, only=_MAP_FILTER, limit=max_files)
