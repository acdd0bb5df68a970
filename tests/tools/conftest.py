"""Tool tests build small repos: ``make_repo(files)`` writes them under ``tmp_path/repo``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

Files = dict[str, str | bytes]


def write_tree(root: Path, files: Files) -> Path:
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")
    return root


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[[Files], Path]:
    def make(files: Files) -> Path:
        root = tmp_path / "repo"
        root.mkdir(exist_ok=True)
        return write_tree(root, files)

    return make
