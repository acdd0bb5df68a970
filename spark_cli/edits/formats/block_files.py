"""Which file a SEARCH/REPLACE block is for when its own lines do not say.

`FileMemory` keeps what the prose before a block said about files, fed by the
streaming parser one complete prose line at a time (as pieces, joined only when a
block needs them): the last non-blank line and the blank lines after it, the last
heading, bold line or lone path line since the previous block, and that block's
file. `resolve` applies, in order: the path the block's own lines gave; the
prose line just before it (one blank line may follow) when it introduces the
file (`path_hints.mention_path`); the last heading naming one file; the previous
block's file. For the answer's first block it also gives a *weak* file, the one
any sentence just before it names, which the block takes only for a non-empty
SEARCH (a wrong file refuses it there; nothing is created).
"""

from __future__ import annotations

from spark_cli.edits.formats.path_hints import mention_path


class FileMemory:
    """What the prose said about files, since the previous block."""

    __slots__ = ("gap", "last", "named", "sticky")

    def __init__(self) -> None:
        self.last: list[str] | None = None  # the last non-blank prose line (its pieces)
        self.gap = 0  # blank prose lines since then
        self.named: list[str] | None = None  # the last heading, bold or lone path line
        self.sticky: str | None = None  # the previous block's file

    def line(self, pieces: list[str]) -> None:
        """A complete non-blank prose line, as the pieces it came in."""
        self.last, self.gap = pieces, 0
        head = pieces[0].lstrip() if pieces else ""
        if head.startswith(("#", "**")):
            self.named = pieces

    def blank(self) -> None:
        self.gap += 1

    def path_line(self, path: str) -> None:
        """A path line that introduced no block (prose followed it)."""
        self.named = [f"`{path}`"]

    def resolve(self, path: str | None) -> tuple[str | None, str | None]:
        """(the block's file, a weak file for a non-empty SEARCH); the prose is used up."""
        if path is None and self.last is not None and self.gap <= 1:
            path = mention_path("".join(self.last))
        if path is None and self.named is not None:
            path = mention_path("".join(self.named))
        weak = None
        if path is None and self.sticky is None and self.last is not None and self.gap <= 1:
            weak = mention_path("".join(self.last), loose=True)
        path = path or self.sticky
        self.sticky = path
        self.last = self.named = None
        return path, weak

    def block_done(self, path: str) -> None:
        """A block closed for ``path``: a block after it with no file reuses it."""
        if self.sticky is None:
            self.sticky = path

    def forget(self) -> None:
        """Something other than prose came (an envelope): the prose names nothing."""
        self.last = self.named = None
