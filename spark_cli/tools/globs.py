"""The ``glob`` argument of search and list_files: which files a call looks at.

A glob is gitignore-style (git's wildmatch, as ``pathspec`` reads ``.gitignore``
lines), the way ``rg -g`` reads one: ``*.py`` (no slash) matches the file name at
any depth, ``src/**/*.ts`` a path, a leading ``!`` excludes what it matches, and
``{a,b}`` braces expand (``*.{ts,tsx}``). A file passes when the glob matches its
path relative to the folder searched or its repo-relative path. ``pathspec`` is
imported only when a call has a glob.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from spark_cli.tools.model import ToolFailure

_BRACES = re.compile(r"\{([^{}]*,[^{}]*)\}")
_MAX_EXPANSIONS = 256


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
    """A test of repo-relative paths for ``glob`` (None: no glob, every file passes)."""
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
