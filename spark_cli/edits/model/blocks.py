"""Parsed edit blocks: the plain values the edit parser emits and the applier consumes."""

from __future__ import annotations

from dataclasses import field
from typing import Literal

from spark_cli.record import record

EditFormat = Literal["search_replace", "apply_patch"]
EditKind = Literal["update", "add", "delete"]


@record
class Hunk:
    """One change: replace `search` with `replace` (empty `search`: create or append);
    `anchors` are `@@` headers, outermost first; `literal`: context lines read whole."""

    search: str
    replace: str
    anchors: tuple[str, ...] = ()
    at_eof: bool = False
    line: int = 0
    literal: tuple[str, str] | None = field(default=None, compare=False)


@record
class FileEdit:
    """One all-or-nothing edit of one file (path as written by the model)."""

    kind: EditKind
    path: str
    hunks: tuple[Hunk, ...]
    fmt: EditFormat
    move_to: str | None = None
    line: int = 0


@record
class BlockRejected:
    """A malformed block: never applied. `message` says what was expected and found."""

    message: str
    line: int
    path: str | None
    raw: str


@record
class ProseDelta:
    """Text outside blocks, passed through (adjacent pieces may be merged)."""

    text: str


ParsedItem = ProseDelta | FileEdit | BlockRejected
