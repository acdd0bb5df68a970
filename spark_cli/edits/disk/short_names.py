"""Shortened paths: a model that writes ``io_utils.py`` for ``src/io_utils.py``.

Models often drop the leading directories of a file they were shown. When an
update or delete names a file that does not exist, the applier asks here for
the files whose path ends with the written one on a ``/`` boundary: first among
the files the model was shown, else in the working tree (a bounded walk that
skips hidden, vendored and build directories). Exactly one candidate is taken;
several are refused by the applier with the list, so the model can pick one.
An absolute path from the model's own machine (``/workspace/proj/src/app.py``,
``C:\\Users\\me\\proj\\src\\app.py``) is read the other way round by
`repo_suffix`: the longest tail of it that names an existing file of the repo.
Nothing here writes; paths still go through `spark_cli.edits.disk.paths.confine`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from spark_cli.edits.disk.atomic import is_temp_name

_SKIP_DIRS = frozenset({
    "node_modules", "__pycache__", "venv", "site-packages", "target", "dist", "build",
    "vendor",
})
MAX_FILES = 50_000  # a walk stops after this many files: a huge tree is not searched whole
MAX_CANDIDATES = 8
_ABSOLUTE = re.compile(r"^(?:/|[A-Za-z]:[\\/]|\\\\)")


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
    """The repo-relative files ``short`` may abbreviate, best source first.

    ``short`` is a normalised relative path that does not exist. The files the
    model was shown (``shown``) are searched first; only if none of them match is
    the tree walked. An empty list means nothing matches.
    """
    from_shown = sorted({rel for rel in shown
                         if _matches(rel, short) and not is_temp_name(rel.rsplit("/", 1)[-1])})
    if from_shown:
        return from_shown
    return sorted(_walk(root, short))


def repo_suffix(root: Path, written: str) -> str | None:
    """For an absolute ``written`` path outside the repo, the longest tail of it (on a
    ``/`` boundary) that is an existing file of the repo: ``/workspace/proj/src/app.py``
    → ``src/app.py``. A tail of at least two parts is required unless the path has no
    more (``/app.py``), so a library file elsewhere (``/usr/lib/x/app.py``) is not
    taken for the repo's ``app.py``. None when nothing fits."""
    if not _ABSOLUTE.match(written):
        return None
    parts = [p for p in written.replace("\\", "/").split("/") if p and not p.endswith(":")]
    if not parts or any(p in (".", "..") for p in parts):
        return None
    shortest = 1 if len(parts) <= 2 else 2
    base = os.fspath(root)
    for start in range(len(parts) - shortest + 1):
        rel = "/".join(parts[start:])
        if not {".git", ".spark"} & set(parts[start:]) \
                and os.path.isfile(os.path.join(base, *parts[start:])):
            return rel
    return None

