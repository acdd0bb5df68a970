"""Config files as tables, with ``tomllib`` only for a text not parsed before.

``tomllib`` costs ~15 M instructions (~4 ms) to import (it compiles its regexes
and loads ``datetime``), before a one-shot's request leaves, in every run that
has a config file. A config file rarely changes, so its parsed table is kept
in ``<root>/.spark/cache/config.json`` under a digest of the file's text
(stamped with the Python version whose ``tomllib`` parsed it): a later run
with the same text reads the table back with ``json``, which is loaded anyway.
Only tables that survive JSON unchanged are kept (a TOML date is not: that
file is parsed every time). A text that does not parse raises
``tomllib.TOMLDecodeError`` as before and is never kept.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from spark_cli.text_digest import text_key

CACHE_FILE = ("cache", "config.json")  # under .spark/
CACHE_VERSION = 1
KEEP = 8
"""Texts kept (the newest): the user's file and the project's, with room for edits."""
_PYTHON = ".".join(map(str, sys.version_info[:3]))


def parse_toml(text: str, root: Path | None) -> dict[str, Any]:
    """``tomllib.loads(text)``, from ``root``'s cache when this text was parsed before."""
    path = root.joinpath(".spark", *CACHE_FILE) if root is not None else None
    digest = text_key(text)
    known = _load(path) if path is not None else {}
    table = known.get(digest)
    if isinstance(table, dict):
        return table
    import tomllib  # a text not seen before (raises TOMLDecodeError for a bad one)

    table = tomllib.loads(text)
    if path is not None and _plain(table):
        known.pop(digest, None)
        known[digest] = table
        _save(path, dict(list(known.items())[-KEEP:]))
    return table


def _plain(table: dict[str, Any]) -> bool:
    """The table reads back from JSON exactly as it is."""
    try:
        return bool(json.loads(json.dumps(table)) == table)
    except (TypeError, ValueError):
        return False


def _load(path: Path) -> dict[str, Any]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if raw.get("version") == CACHE_VERSION and raw.get("python") == _PYTHON:
            files = raw["files"]
            if isinstance(files, dict):
                return files
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        pass
    return {}


def _save(path: Path, files: dict[str, Any]) -> None:
    """Write atomically; a read-only checkout just keeps paying tomllib."""
    spark = path.parent.parent
    try:
        spark.mkdir(exist_ok=True)
        if not (spark / ".gitignore").exists():
            (spark / ".gitignore").write_text("*\n")
        path.parent.mkdir(exist_ok=True)
        temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        temp.write_text(json.dumps({"version": CACHE_VERSION, "python": _PYTHON,
                                    "files": files}, separators=(",", ":")), encoding="utf-8")
        os.replace(temp, path)
    except OSError:
        pass
