"""One ignore file's rules, pathspec only when needed: a file without a negation is one
regex (:func:`combined`), cached by :class:`IgnoreCache` so a later run never imports
pathspec (`spark bench oneshot` shows the one-shot this keeps fast)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from spark_cli.edits.disk.atomic import write_atomic
from spark_cli.text_digest import text_key

if TYPE_CHECKING:
    import pathspec

CACHE_FILE = ("cache", "ignores.json")  # under .spark/
CACHE_VERSION = 1
_GROUP = re.compile(r"\(\?P<\w+>")


def combined(spec: pathspec.GitIgnoreSpec) -> str | None:
    """All of ``spec``'s patterns as one regex source, or None when one negates."""
    sources = []
    for pattern in spec.patterns:
        include = getattr(pattern, "include", None)
        if include is None:
            continue
        regex = getattr(pattern, "regex", None)
        if include is False or regex is None:
            return None
        sources.append(_GROUP.sub("(?:", regex.pattern))
    return "|".join(f"(?:{s})" for s in sources) if sources else "(?!)"


class IgnoreFile:
    """One ignore file: ``quick`` (the one regex, or None) and, on demand, its pathspec."""

    __slots__ = ("_spec", "quick", "text")

    def __init__(self, text: str, quick: re.Pattern[str] | None) -> None:
        self.text = text
        self.quick = quick
        self._spec: pathspec.GitIgnoreSpec | None = None

    @property
    def spec(self) -> pathspec.GitIgnoreSpec:
        if self._spec is None:
            import pathspec  # deferred: launch -> request

            self._spec = pathspec.GitIgnoreSpec.from_lines(self.text.splitlines())
        return self._spec


@cache
def pathspec_stamp() -> str | None:
    """The installed pathspec's ``__init__`` path, size and mtime, found without importing it."""
    try:
        spec = importlib.util.find_spec("pathspec")
        origin = spec.origin if spec is not None else None
        if not origin:
            return None
        stat = os.stat(origin)
    except (ImportError, ValueError, OSError):
        return None
    return f"{origin}:{stat.st_size}:{stat.st_mtime_ns}"


class IgnoreCache:
    """``<root>/.spark/cache/ignores.json``: an ignore file's digest -> its regex, per pathspec."""

    def __init__(self, root: Path) -> None:
        self.path = root.joinpath(".spark", *CACHE_FILE)
        self._known: dict[str, str | None] | None = None
        self._dirty = False

    def rules(self, text: str) -> IgnoreFile:
        """The rules of an ignore file whose content is ``text``."""
        known = self._load()
        digest = text_key(text)
        source = known.get(digest)
        if source is not None:
            return IgnoreFile(text, re.compile(source))
        rules = IgnoreFile(text, None)
        source = combined(rules.spec)  # pathspec: a new file, or one that negates
        rules.quick = re.compile(source) if source is not None else None
        if digest not in known:
            known[digest] = source
            self._dirty = True
        return rules

    def save(self) -> None:
        """Write the cache if a new ignore file was read (atomically; skipped if read-only)."""
        stamp = pathspec_stamp()
        if not self._dirty or self._known is None or stamp is None:
            return
        self._dirty = False
        spark = self.path.parent.parent
        try:
            spark.mkdir(exist_ok=True)
            if not (spark / ".gitignore").exists():
                (spark / ".gitignore").write_text("*\n")
            write_atomic(self.path, json.dumps({"version": CACHE_VERSION, "pathspec": stamp,
                                                "files": self._known},
                                               separators=(",", ":")).encode(), durable=False)
        except OSError:
            pass

    def _load(self) -> dict[str, str | None]:
        if self._known is None:
            self._known = {}
            try:
                raw = json.loads(self.path.read_text(encoding="utf-8"))
                stamp = pathspec_stamp()
                if (raw.get("version") == CACHE_VERSION and stamp is not None
                        and raw.get("pathspec") == stamp):
                    files = raw["files"]
                    if all(isinstance(v, str) or v is None for v in files.values()):
                        self._known = {str(k): v for k, v in files.items()}
            except (OSError, ValueError, TypeError, KeyError, AttributeError):
                pass
        return self._known
