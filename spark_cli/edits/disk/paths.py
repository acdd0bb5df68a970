"""Repo paths: a path written by a model as a file inside the repo (`confine`), or a
refusal; `expand_short_name` and `repo_suffix` find what a shortened or foreign path means."""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable
from pathlib import Path

from spark_cli.edits.disk.atomic import is_temp_name
from spark_cli.edits.model.outcome import FileRefused
from spark_cli.record import record

PROTECTED_DIRS = frozenset({".git", ".spark"})
_WINDOWS_ABSOLUTE = re.compile(r"^(?:[A-Za-z]:|\\\\|//)")
_SKIP_DIRS = frozenset({
    "node_modules", "__pycache__", "venv", "site-packages", "target", "dist", "build",
    "vendor",
})
MAX_FILES = 50_000  # a walk stops after this many files: a huge tree is not searched whole
MAX_CANDIDATES = 8
_ABSOLUTE = re.compile(r"^(?:/|[A-Za-z]:[\\/]|\\\\)")


@record
class RepoPath:
    """A confined path: ``rel`` is normalised and POSIX-style, ``path`` is absolute."""

    rel: str
    path: Path


def _under(root: Path, name: str) -> str:
    """``name`` (absolute) relative to ``root`` as given or resolved; "" when outside."""
    path = posixpath.normpath(name)
    for base in (os.path.abspath(root), os.path.realpath(root)):
        prefix = base.rstrip("/") + "/"
        if path.startswith(prefix) and len(path) > len(prefix):
            return path[len(prefix):]
    return ""


def confine(root: Path, raw: str) -> RepoPath:
    """The file ``raw`` names inside ``root``; `FileRefused` if it may not be touched."""
    name = raw.strip()
    if not name:
        raise FileRefused("empty path: name the file relative to the repo root")
    if "\x00" in name:
        raise FileRefused(f"{name!r}: a path may not contain NUL characters")
    if _WINDOWS_ABSOLUTE.match(name) or (name.startswith("/") and not _under(root, name)):
        raise FileRefused(
            f"{name}: absolute paths are refused; use a path relative to the repo root"
        )
    if name.startswith("/"):
        name = _under(root, name)
    # Models on Windows write src\\app.py; a backslash in a real file name is vanishingly rare.
    rel = posixpath.normpath(name.replace("\\", "/"))
    if rel == "." or rel.endswith("/"):
        raise FileRefused(f"{name}: names a directory, not a file")
    if rel == ".." or rel.startswith("../"):
        raise FileRefused(f"{name}: '..' leads outside the repo root; paths must stay inside it")
    parts = rel.split("/")
    if is_temp_name(parts[-1]):
        raise FileRefused(f"{name}: a temp file left by an interrupted spark write, not a "
                          "source file; name the real file")
    protected = PROTECTED_DIRS.intersection(parts)
    if protected:
        raise FileRefused(f"{name}: files inside {sorted(protected)[0]}/ are never edited")
    root_real = os.path.realpath(root)
    # Every existing component must stay inside the root once symlinks are followed.
    current = root_real
    for part in parts:
        candidate = os.path.join(current, part)
        if os.path.islink(candidate):
            target = os.path.realpath(candidate)
            if target != root_real and not target.startswith(root_real.rstrip(os.sep) + os.sep):
                raise FileRefused(
                    f"{name}: goes through a symlink ({part}) that leads outside the repo root"
                )
            current = target
        else:
            current = candidate
    return RepoPath(rel, Path(root_real, *parts))


def _matches(rel: str, short: str) -> bool:
    return rel != short and rel.endswith("/" + short)


def _walk(root: Path, short: str) -> list[str]:
    found: list[str] = []
    seen_files = 0
    base = os.fspath(root)
    for top, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
        prefix = os.path.relpath(top, base).replace(os.sep, "/")
        for name in files:
            if is_temp_name(name):  # a killed write's leftover, never a source file
                continue
            rel = name if prefix == "." else f"{prefix}/{name}"
            if _matches(rel, short):
                found.append(rel)
                if len(found) > MAX_CANDIDATES:
                    return found
        seen_files += len(files)
        if seen_files > MAX_FILES:
            break
    return found


def expand_short_name(root: Path, short: str, shown: Iterable[str] = ()) -> list[str]:
    """The repo files whose path ends with ``short``: the ``shown`` ones, else a bounded walk."""
    from_shown = sorted({rel for rel in shown
                         if _matches(rel, short) and not is_temp_name(rel.rsplit("/", 1)[-1])})
    if from_shown:
        return from_shown
    return sorted(_walk(root, short))


def repo_suffix(root: Path, written: str) -> str | None:
    """The longest tail (two parts at least) of an absolute ``written`` path that is a repo file."""
    if not _ABSOLUTE.match(written):
        return None
    parts = [p for p in written.replace("\\", "/").split("/") if p and not p.endswith(":")]
    if not parts or any(p in (".", "..") for p in parts):
        return None
    shortest = 1 if len(parts) <= 2 else 2
    base = os.fspath(root)
    for start in range(len(parts) - shortest + 1):
        rel = "/".join(parts[start:])
        if not PROTECTED_DIRS.intersection(parts[start:]) \
                and os.path.isfile(os.path.join(base, *parts[start:])):
            return rel
    return None

