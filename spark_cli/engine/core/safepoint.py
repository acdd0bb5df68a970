"""Where a steered response may stop: a line boundary outside any fence, SEARCH/REPLACE
block or patch envelope, so the client never sees half an edit; a steer that finds none
within ``STEER_GRACE_TOKENS`` stops at the end of the frame."""

from __future__ import annotations

_FENCE = "```"
_SEARCH = "<<<<<<< SEARCH"
_REPLACE = ">>>>>>> REPLACE"
_BEGIN = "*** Begin Patch"
_END = "*** End Patch"
_HEAD = 24
"""Only a line's first characters decide its kind."""
STEER_GRACE_TOKENS = 256
"""A steer waits at most this many tokens for a safe point, then stops at the frame."""


class SafePoints:
    __slots__ = ("_block", "_fence", "_head", "_patch", "_waited")

    def __init__(self) -> None:
        self._fence = False
        self._block = False
        self._patch = False
        self._head = ""
        self._waited = 0
        """Tokens sent while a steer waited (see ``STEER_GRACE_TOKENS``)."""

    @property
    def at_line_start(self) -> bool:
        """True when the text so far ends with a newline (or is empty)."""
        return not self._head

    @property
    def outside(self) -> bool:
        """True between lines that are not inside a fence or an edit block."""
        return not (self._fence or self._block or self._patch)

    def _line_done(self, line: str) -> None:
        stripped = line.strip()
        if stripped.startswith(_FENCE):
            self._fence = not self._fence
        elif stripped.startswith(_SEARCH):
            self._block = True
        elif stripped.startswith(_REPLACE):
            self._block = False
        elif stripped.startswith(_BEGIN):
            self._patch = True
        elif stripped.startswith(_END):
            self._patch = False

    def feed(self, text: str, *, want_cut: bool = False) -> int | None:
        """Track ``text``; with ``want_cut``, the offset after its first safe newline."""
        start = 0
        while True:
            newline = text.find("\n", start)
            if newline < 0:
                if len(self._head) < _HEAD:
                    self._head += text[start : start + _HEAD]
                return None
            line = self._head + text[start : min(newline, start + _HEAD)]
            self._head = ""
            self._line_done(line)
            start = newline + 1
            if want_cut and self.outside:
                return start

    def steer_cut(self, pieces: list[str], text: str) -> tuple[int, str] | None:
        """(pieces, text) of the frame up to a waiting steer's cut; None: send it all, wait."""
        self._waited += len(pieces)
        cut = self.feed(text, want_cut=True)
        if cut is None:
            return (len(pieces), text) if self._waited >= STEER_GRACE_TOKENS else None
        total = 0
        for count, piece in enumerate(pieces, 1):
            total += len(piece)
            if total >= cut:
                return count, text[:cut]
        return len(pieces), text[:cut]
