"""Helpers for the deep tests: small real repos (with and without git) in tmp dirs."""

from __future__ import annotations

import subprocess
from pathlib import Path

GIT = ("git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false",
       "-c", "init.defaultBranch=main")


def git(root: Path, *args: str) -> str:
    return subprocess.run([*GIT, *args], cwd=root, check=True, capture_output=True,
                          text=True).stdout


def make_repo(root: Path, files: dict[str, str], *, use_git: bool) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    if use_git:
        git(root, "init", "-q")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "start")
    return root


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` but .git/.spark: path -> bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not {".git", ".spark"} & set(p.relative_to(root).parts)}
