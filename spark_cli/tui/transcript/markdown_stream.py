"""Cutting streamed Markdown into what a frame paints: finished lines, closed blocks, the tail."""

from __future__ import annotations

from typing import Literal

Op = tuple[Literal["line", "block"], str]


def fence_marker(line: str) -> str | None:
    """The fence marker a line opens or closes with (``` or ~~~, 3+), else None."""
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3:
        return None
    for char in "`~":
        if stripped.startswith(char * 3):
            run = len(stripped) - len(stripped.lstrip(char))
            return char * run
    return None


class MarkdownStream:
    """Streamed Markdown in, per-frame paint operations out: ``take`` gives ``("line", text)``
    per complete line of the open block and ``("block", source)`` when it closes (a blank
    line, a closing fence, a heading); :attr:`partial` is the unfinished last line."""

    def __init__(self) -> None:
        self._pending: list[str] = []
        self._block: list[str] = []  # the open block's complete lines
        self._fence: str | None = None  # the open code fence's marker
        self._reopened = False  # the open block starts with a fence line not on screen
        self.partial = ""
        """The unfinished last line."""
        self.taken = 0
        """Characters handed out so far (what is on screen: `spark bench tui` reads it)."""

    def feed(self, text: str) -> None:
        self._pending.append(text)

    def drop(self) -> None:
        """Forget the text fed since the last ``take`` (Esc: it never reaches the screen)."""
        self._pending.clear()

    @property
    def pending(self) -> bool:
        """Text arrived since the last ``take``."""
        return bool(self._pending)

    def take(self) -> list[Op]:
        """The operations for one frame (``partial`` is updated too)."""
        if not self._pending:
            return []
        arrived = "".join(self._pending)
        self._pending.clear()
        self.taken += len(arrived)
        text = self.partial + arrived
        *lines, self.partial = text.split("\n")
        ops: list[Op] = []
        for line in lines:
            self._line(line, ops)
        return ops

    def seal(self) -> str | None:
        """Close the open block now: its source (an open fence closed, to go on after)."""
        if not self._block or (self._reopened and len(self._block) == 1):
            return None
        if self._fence is None:
            return self._close()
        opener = self._block[0]
        source = self._close() + "\n" + self._fence
        self._block = [opener]  # the rest of the code is still code
        self._reopened = True
        return source

    def finish(self) -> list[Op]:
        """The answer ended: whatever is open closes (an unclosed fence too)."""
        ops = self.take()
        if self.partial:
            self._line(self.partial, ops)
            self.partial = ""
        if self._block:
            ops.append(("block", self._close()))
        return ops

    def _line(self, line: str, ops: list[Op]) -> None:
        if self._fence is not None:
            self._block.append(line)
            ops.append(("line", line))
            marker = fence_marker(line)
            if marker is not None and marker.startswith(self._fence) and \
                    not line.strip()[len(marker):].strip():
                self._fence = None
                ops.append(("block", self._close()))
            return
        marker = fence_marker(line)
        if marker is not None:
            if self._block:  # a fence starts a block of its own
                ops.append(("block", self._close()))
            self._fence = marker
            self._block.append(line)
            ops.append(("line", line))
            return
        if not line.strip():
            if self._block:
                ops.append(("block", self._close()))
            return
        if line.lstrip().startswith("#"):
            if self._block:
                ops.append(("block", self._close()))
            self._block.append(line)
            ops.append(("line", line))
            ops.append(("block", self._close()))
            return
        self._block.append(line)
        ops.append(("line", line))

    def _close(self) -> str:
        source = "\n".join(self._block)
        self._block = []
        self._reopened = False
        return source
