"""Parsed edit blocks: the plain values the edit parser emits and the applier consumes.

No I/O and no behaviour beyond construction: a `FileEdit` is one all-or-nothing
unit (one SEARCH/REPLACE block, or one file section of an apply_patch envelope),
a `BlockRejected` is a malformed block with a model-readable message, and a
`ProseDelta` is text outside blocks, passed through for rendering.
"""

from __future__ import annotations

from dataclasses import field
from typing import Literal

from spark_cli.record import record

EditFormat = Literal["search_replace", "apply_patch"]
EditKind = Literal["update", "add", "delete"]


@record
class Hunk:
    """One located change: replace `search` with `replace`.

    `search` empty means create the file or append to it (SEARCH/REPLACE).
    `anchors` are apply_patch `@@ <context>` headers, outermost first.
    `at_eof` marks `*** End of File`: the search must match at the end.
    `line` is the 1-based line in the edit text where the hunk starts.
    `literal` (apply_patch) is (search, replace) with every ' ' context line read
    whole, its leading space kept: the reading for a model that dropped the prefix
    space of context lines (None when it reads the same).
    """

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
