"""Which repo files a deep task's request carries.

In order, without repeats, while they fit half the deep model's input budget:
the files the front end gives (its context set), the files a ``pick`` hook
returns (context building), the files the task names (``src/app.py``,
``app.py`` when it exists), and, when none of those gave anything, the text
files that mention a code name from the task (``load_config``, ``LoadConfig``,
``\\`parse\\```): a rename across files needs every file that uses the name.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from spark_cli.protocol.tokens import count_tokens

_PATHLIKE = re.compile(r"[\w./-]*\w\.\w{1,8}\b")
_QUOTED = re.compile(r"[`'\"]([A-Za-z_][\w.]*)[`'\"]")
_CODE_NAME = re.compile(r"\b[A-Za-z_]\w*(?:_\w+|[a-z][A-Z]\w*)\b")
_RENAME = re.compile(r"\brename\s+(?:the\s+\w+\s+)?([A-Za-z_]\w*)", re.IGNORECASE)
_SKIP_DIRS = frozenset({".git", ".spark", "node_modules", "__pycache__", ".venv", "venv",
                        "dist", "build", "target", ".mypy_cache", ".pytest_cache"})
MAX_FILE_BYTES = 256 * 1024
MAX_SCANNED = 5_000


def named_files(task: str, root: Path) -> list[str]:
    """Paths in ``task`` that are files under ``root`` (relative, POSIX)."""
    out = []
    for match in _PATHLIKE.finditer(task):
        rel = match.group().strip("./") if match.group().startswith("./") else match.group()
        path = root / rel
        if rel and ".." not in rel.split("/") and path.is_file():
            out.append(Path(rel).as_posix())
    return out


def code_names(task: str) -> list[str]:
    """Names in ``task`` that look like code (snake_case, camelCase, quoted, renamed)."""
    names = [m.group(1) for m in _QUOTED.finditer(task)]
    names += [m.group(1) for m in _RENAME.finditer(task)]
    names += [m.group() for m in _CODE_NAME.finditer(task)]
    return list(dict.fromkeys(n for n in names if len(n) >= 3))


def _text_files(root: Path) -> Iterable[str]:
    seen = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        rel_dir = os.path.relpath(folder, root)
        for name in sorted(files):
            seen += 1
            if seen > MAX_SCANNED:
                return
            yield name if rel_dir == "." else f"{rel_dir}/{name}".replace(os.sep, "/")


def mentioning(root: Path, names: Sequence[str]) -> list[str]:
    """Text files under ``root`` whose content holds one of ``names`` as a whole word."""
    if not names:
        return []
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(n) for n in names) + r")\b")
    out = []
    for rel in _text_files(root):
        path = root / rel
        try:
            if path.is_symlink() or path.stat().st_size > MAX_FILE_BYTES:
                continue
            data = path.read_bytes()
        except OSError:
            continue
        if b"\0" in data:
            continue
        if pattern.search(data.decode("utf-8", errors="replace")):
            out.append(rel)
    return out


def choose_files(task: str, root: Path, given: Sequence[str], picked: Sequence[str],
                 budget: int) -> list[str]:
    """The files for the request, in order, within ``budget`` tokens (at least one file)."""
    candidates = [*given, *picked, *named_files(task, root)]
    if not candidates:
        candidates = mentioning(root, code_names(task))
    chosen: list[str] = []
    used = 0
    for rel in dict.fromkeys(candidates):
        path = root / rel
        try:
            size = count_tokens(path.read_text(errors="replace")) if path.is_file() else -1
        except OSError:
            size = -1
        if size < 0:
            continue
        if chosen and used + size > budget:
            continue
        chosen.append(rel)
        used += size
    return chosen
