"""Repo confinement: turn a path written by a model into a file inside the repo, or refuse.

Refused before anything is written: empty paths, absolute paths outside the
root (an absolute POSIX path inside the root is taken relative to it; Windows
drive and UNC paths are always refused), ``..`` that climbs out of the root, any
symlink on the way that leads outside the root, anything inside ``.git/`` or
``.spark/``, and spark's own temp files (`atomic.is_temp_name`).
Backslashes count as separators (models on Windows write ``src\\app.py``).
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path

from spark_cli.edits.disk.atomic import is_temp_name
from spark_cli.edits.model.outcome import FileRefused
from spark_cli.record import record

PROTECTED_DIRS = frozenset({".git", ".spark"})
_WINDOWS_ABSOLUTE = re.compile(r"^(?:[A-Za-z]:|\\\\|//)")


@record
class RepoPath:
    """A confined path: ``rel`` is normalised and POSIX-style, ``path`` is absolute."""

    rel: str
    path: Path


def _is_within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _under(root: Path, name: str) -> str:
    """``name`` (absolute) relative to ``root`` as given or resolved; "" when outside."""
    path = posixpath.normpath(name)
    for base in (os.path.abspath(root), os.path.realpath(root)):
        prefix = base.rstrip("/") + "/"
        if path.startswith(prefix) and len(path) > len(prefix):
            return path[len(prefix):]
    return ""


def confine(root: Path, raw: str) -> RepoPath:
    """The file ``raw`` names inside ``root``; raises `FileRefused` if it may not be touched."""
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
            if not _is_within(target, root_real):
                raise FileRefused(
                    f"{name}: goes through a symlink ({part}) that leads outside the repo root"
                )
            current = target
        else:
            current = candidate
    return RepoPath(rel, Path(root_real, *parts))
