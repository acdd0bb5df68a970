"""``list_files {path?, glob?}``, and the files any call looks at (``search``'s too): the
:mod:`.repo_files` walk plus files the user named, at most ``MAX_SHOWN`` shown."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from spark_cli.tools.access import Access, Target
from spark_cli.tools.defs import LIST_MAX_SHOWN as MAX_SHOWN
from spark_cli.tools.model import ToolFailure, ToolResult, Value
from spark_cli.tools.repo_files import WalkFilter, walk

if TYPE_CHECKING:
    import threading

WALK_LIMIT = 200_000
_BRACES = re.compile(r"\{([^{}]*,[^{}]*)\}")
_MAX_EXPANSIONS = 256


def folder_files(access: Access, target: Target, keep: Callable[[str], bool] | None, *,
                 max_bytes: int | None, skip_extensions: frozenset[str],
                 cancel: threading.Event | None) -> list[str]:
    """Repo-relative files below ``target`` that a tool may look at and ``keep`` passes."""
    rels = [target.rel]
    if target.is_dir:
        only = WalkFilter(skip_dirs=frozenset() if target.vendored else WalkFilter().skip_dirs,
                          skip_extensions=skip_extensions, max_bytes=max_bytes)
        rels = walk(access.root, under=target.rel, only=only, limit=WALK_LIMIT,
                    cancel=cancel).paths()
        named = [t.rel for t in access.named_files(target.rel)
                 if max_bytes is None or t.size <= max_bytes]
        if named:
            rels = sorted(set(rels).union(named))
    return rels if keep is None else [rel for rel in rels if keep(rel)]


def list_files(access: Access, args: dict[str, Value],
               cancel: threading.Event | None = None) -> ToolResult:
    """Run ``list_files``; raises `ToolFailure` for a call that cannot be answered."""
    target = access.locate(str(args["path"]) if "path" in args else None, want="any")
    keep = glob_filter(str(args["glob"]) if "glob" in args else None, target.rel)
    rels = folder_files(access, target, keep, max_bytes=None, skip_extensions=frozenset(),
                        cancel=cancel)
    if not rels:
        return ToolResult(True, "no files", "0 files")
    shown = rels[:MAX_SHOWN]
    if len(rels) > MAX_SHOWN:
        shown.append(f"[{len(rels) - MAX_SHOWN} more files not shown]")
    count = f"{len(rels)} file" + ("" if len(rels) == 1 else "s")
    return ToolResult(True, "\n".join(shown), count)


def expand_braces(glob: str) -> list[str]:
    """``a{b,c}d`` -> ``abd``, ``acd``; several groups multiply (at most 256 patterns)."""
    found = _BRACES.search(glob)
    if found is None:
        return [glob]
    out: list[str] = []
    for choice in found.group(1).split(","):
        for rest in expand_braces(glob[:found.start()] + choice + glob[found.end():]):
            out.append(rest)
            if len(out) >= _MAX_EXPANSIONS:
                return out
    return out


def glob_filter(glob: str | None, under: str) -> Callable[[str], bool] | None:
    """A test of repo-relative paths for a gitignore-style ``glob`` (None: every file passes).

    A file passes when the glob matches its path relative to ``under`` or to the repo."""
    if glob is None or not glob.strip():
        return None
    text = glob.strip()
    exclude = text.startswith("!")
    if exclude:
        text = text[1:]
    import pathspec  # deferred: launch -> request (a tool call without a glob)

    try:
        spec = pathspec.GitIgnoreSpec.from_lines(expand_braces(text))
    except (ValueError, TypeError) as exc:
        raise ToolFailure(f"glob {glob!r} is not a valid glob ({exc}); write one such as *.py or "
                          "src/**/*.ts", "bad glob") from None
    if not any(getattr(p, "include", None) is not None for p in spec.patterns):
        raise ToolFailure(f"glob {glob!r} matches nothing; write one such as *.py or src/**/*.ts",
                          "bad glob")
    prefix = under + "/" if under else ""

    def keep(rel: str) -> bool:
        inside = rel[len(prefix):] if prefix and rel.startswith(prefix) else rel
        hit = spec.match_file(inside) or (inside != rel and spec.match_file(rel))
        return hit != exclude

    return keep
