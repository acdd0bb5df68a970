"""SEARCH/REPLACE blocks: their marker lines and the state of one open block.

A block is `<<<<<<< SEARCH`, the text to find, `=======`, the replacement and
`>>>>>>> REPLACE` (5 to 9 marker characters). `SearchReplaceBlock` is fed the
lines after the SEARCH marker, one at a time, and says when the block closed
(a `FileEdit`), broke (a `BlockRejected`), or was cut short by a line that
belongs to something else (which the caller then reads again as prose).
"""

from __future__ import annotations

import re

from spark_cli.edits.blocks import BlockRejected, FileEdit, Hunk, ParsedItem

SEARCH_MARK = re.compile(r"[ \t]*<{5,9}[ \t]*SEARCH[ \t]*$")
DIVIDER = re.compile(r"[ \t]*={5,9}[ \t]*$")
REPLACE_MARK = re.compile(r"[ \t]*>{5,9}[ \t]*REPLACE[ \t]*$")
# Envelope lines that cannot be block content: they end a broken block early.
_ENVELOPE_EDGE = re.compile(r"\*\*\* (?:Begin|End) Patch[ \t]*$")
# Cheap first test: only lines starting like a marker need the exact patterns.
_MAYBE_MARK = re.compile(r"[ \t]*(?:[<=>]{5}|\*\*\* )")

NO_PATH = ("the SEARCH/REPLACE block has no file path: put the path on its own line "
           "just before '<<<<<<< SEARCH' (or before the opening ``` fence)")


def _quote(text: str, limit: int = 60) -> str:
    text = text.strip()
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


class SearchReplaceBlock:
    """One open SEARCH/REPLACE block for `path` (None: the model gave none)."""

    __slots__ = ("_divided", "_raw", "_replace", "_search", "line", "path")

    def __init__(self, path: str | None, line: int, marker_raw: str) -> None:
        self.path = path
        self.line = line
        self._raw: list[str] = [marker_raw]
        self._search: list[str] = []
        self._replace: list[str] = []
        self._divided = False

    def _for(self) -> str:
        return f"for {self.path} " if self.path else ""

    def _reject(self, lineno: int, message: str) -> BlockRejected:
        return BlockRejected(f"line {lineno}: {message}", lineno, self.path, "".join(self._raw))

    def feed(self, text: str, raw: str, lineno: int) -> tuple[ParsedItem | None, bool]:
        """Take one line (`text` without its newline). Returns (item, consumed):
        (None, True) while open; (item, True) when the block closed or broke on this
        line; (rejection, False) when this line belongs to what follows the block."""
        if _MAYBE_MARK.match(text) is None:
            (self._replace if self._divided else self._search).append(text)
            self._raw.append(raw)
            return None, True
        if SEARCH_MARK.match(text) or _ENVELOPE_EDGE.match(text):
            part = ("'>>>>>>> REPLACE' to close" if self._divided
                    else "'=======' to end the SEARCH part of")
            return self._reject(lineno, f"expected {part} the block {self._for()}"
                                f"(opened at line {self.line}), got {_quote(text)}; the block "
                                "was not applied"), False
        self._raw.append(raw)
        if not self._divided and DIVIDER.match(text):
            self._divided = True
            return None, True
        if REPLACE_MARK.match(text):
            if not self._divided:
                return self._reject(lineno, "expected '=======' between the SEARCH and REPLACE "
                                    f"parts of the block {self._for()}(opened at line "
                                    f"{self.line}), got '>>>>>>> REPLACE'; the block was not "
                                    "applied"), True
            if self.path is None:
                return self._reject(self.line, NO_PATH), True
            return self._finish(), True
        (self._replace if self._divided else self._search).append(text)
        return None, True

    def tail(self, count: int) -> list[str]:
        """The last `count` lines of the open part (a broken block may end with the
        next block's path line, which the caller reads again)."""
        part = self._replace if self._divided else self._search
        return part[-count:]

    def _finish(self) -> FileEdit:
        assert self.path is not None
        search = "".join(line + "\n" for line in self._search)
        replace = "".join(line + "\n" for line in self._replace)
        hunk = Hunk(search, replace, line=self.line)
        return FileEdit("update", self.path, (hunk,), "search_replace", line=self.line)

    def close(self, lineno: int) -> BlockRejected:
        """The stream ended with the block still open."""
        wanted = "'>>>>>>> REPLACE'" if self._divided else "'=======' and '>>>>>>> REPLACE'"
        return self._reject(lineno, f"unfinished SEARCH/REPLACE block {self._for()}(opened at "
                            f"line {self.line}): the answer ended before {wanted}; the block "
                            "was not applied")
