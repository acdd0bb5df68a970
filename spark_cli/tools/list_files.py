"""``list_files {path?, glob?}``: the repo's files under a folder, one path a line.

The walk of :mod:`.repo_files`: ``.gitignore`` honoured, never ``.git/`` or
``.spark/``, no symlinks, vendored and generated folders (``node_modules``,
``build``, virtualenvs …) skipped unless ``path`` is inside one; binary and large
files are listed. Files the user named or added are listed even when ignored.
Paths are repo-relative with "/", sorted; at most ``MAX_SHOWN``, then
``[N more files not shown]`` (N is a lower bound past ``WALK_LIMIT`` files). A
``path`` naming a file lists that file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spark_cli.tools.access import Access, Target
from spark_cli.tools.arguments import Value
from spark_cli.tools.defs import LIST_MAX_SHOWN as MAX_SHOWN
from spark_cli.tools.globs import glob_filter
from spark_cli.tools.model import ToolResult
from spark_cli.tools.repo_files import WalkFilter, walk

if TYPE_CHECKING:
    import threading

WALK_LIMIT = 200_000

def folder_files(access: Access, target: Target, *, max_bytes: int | None,
                 skip_extensions: frozenset[str], cancel: threading.Event | None) -> list[str]:
    """The repo-relative files below the folder ``target`` that a tool may look at."""
    if not target.is_dir:
        return [target.rel]
    only = WalkFilter(skip_dirs=frozenset() if target.vendored else WalkFilter().skip_dirs,
                      skip_extensions=skip_extensions, max_bytes=max_bytes)
    found = walk(access.root, under=target.rel, only=only, limit=WALK_LIMIT, cancel=cancel)
    rels = found.paths()
    named = [t.rel for t in access.named_files(target.rel)
             if max_bytes is None or t.size <= max_bytes]
    if named:
        rels = sorted(set(rels).union(named))
    return rels


def list_files(access: Access, args: dict[str, Value],
               cancel: threading.Event | None = None) -> ToolResult:
    """Run ``list_files``; raises `ToolFailure` for a call that cannot be answered."""
    target = access.locate(str(args["path"]) if "path" in args else None, want="any")
    keep = glob_filter(str(args["glob"]) if "glob" in args else None, target.rel)
    rels = folder_files(access, target, max_bytes=None, skip_extensions=frozenset(),
                        cancel=cancel)
    if keep is not None:
        rels = [rel for rel in rels if keep(rel)]
    if not rels:
        return ToolResult(True, "no files", "0 files")
    shown = rels[:MAX_SHOWN]
    if len(rels) > MAX_SHOWN:
        shown.append(f"[{len(rels) - MAX_SHOWN} more files not shown]")
    count = f"{len(rels)} file" + ("" if len(rels) == 1 else "s")
    return ToolResult(True, "\n".join(shown), count)
