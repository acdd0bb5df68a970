"""SEARCH/REPLACE blocks (`<<<<<<< SEARCH` … `=======` … `>>>>>>> REPLACE`, 5 to 9
marker characters): their marker lines and the state of one open block."""

from __future__ import annotations

import re

from spark_cli.edits.formats.patch_envelope import Status
from spark_cli.edits.formats.patch_section import quote
from spark_cli.edits.formats.path_hints import looks_like_path
from spark_cli.edits.model.blocks import BlockRejected, FileEdit, Hunk, ParsedItem

SEARCH_MARK = re.compile(r"([ \t]*)(<{5,9})[ \t]*SEARCH(?:(?:[ \t]+|[ \t]*:[ \t]*)`?"
                         r"(?P<path>[^\s`]+?)`?)?[ \t]*$")
DIVIDER = re.compile(r"[ \t]*={5,9}[ \t]*$")
REPLACE_MARK = re.compile(r"[ \t]*>{5,9}[ \t]*REPLACE[ \t]*(?P<fence>`{3,}|~{3,})?[ \t]*$")
# Envelope lines that cannot be block content: they end a broken block early.
_ENVELOPE_EDGE = re.compile(r"\*\*\* (?:Begin|End) Patch[ \t]*$")
# Cheap first test: only lines starting like a marker need the exact patterns.
_MAYBE_MARK = re.compile(r"[ \t]*(?:[<=>]{5}|\*\*\* )")

NO_PATH = ("the SEARCH/REPLACE block has no file path: put the path on its own line "
           "just before '<<<<<<< SEARCH' (or before the opening ``` fence)")


def search_marker(text: str) -> re.Match[str] | None:
    """The `<<<<<<< SEARCH` line (group 1: indent, 2: marker, `path`: a path after it)."""
    match = SEARCH_MARK.match(text)
    if match is None or (match.group("path") and not looks_like_path(match.group("path"))):
        return None
    return match


def _dedent(lines: list[str], indent: str) -> list[str]:
    """`lines` without `indent`, if every non-blank line starts with it (else unchanged)."""
    if not indent or any(line.strip() and not line.startswith(indent) for line in lines):
        return lines
    cut = len(indent)
    return [line[cut:] if line.strip() else line.lstrip(" \t") for line in lines]


class SearchReplaceBlock:
    """One open SEARCH/REPLACE block (``path`` None: the model gave none)."""

    __slots__ = ("_body", "_dividers", "_indent", "_marker", "_raw", "_weak", "line", "path")

    def __init__(self, path: str | None, line: int, marker_raw: str, marker: int = 7,
                 indent: str = "", weak_path: str | None = None) -> None:
        self.path = path
        self._weak = weak_path  # used only for a non-empty SEARCH when path is None
        self.line = line
        self._raw: list[str] = [marker_raw]
        self._body: list[str] = []  # every line between the markers, dividers included
        self._dividers: list[int] = []  # indexes of the lines that look like '======='
        self._marker = marker  # how many '<' the SEARCH marker has
        self._indent = indent

    def _for(self) -> str:
        return f"for {self.path} " if self.path else ""

    def _reject(self, lineno: int, message: str) -> BlockRejected:
        return BlockRejected(f"line {lineno}: {message}", lineno, self.path, "".join(self._raw))

    def feed(self, text: str, raw: str, lineno: int) -> tuple[list[ParsedItem], Status]:
        """Take one line: "closed" when the block closed or broke, "left": it is what follows."""
        if _MAYBE_MARK.match(text) is None:
            self._body.append(text)
            self._raw.append(raw)
            return [], "open"
        if search_marker(text) or _ENVELOPE_EDGE.match(text):
            part = ("'>>>>>>> REPLACE' to close" if self._dividers
                    else "'=======' to end the SEARCH part of")
            return [self._reject(lineno, f"expected {part} the block {self._for()}"
                                 f"(opened at line {self.line}), got {quote(text)}; the block "
                                 "was not applied")], "left"
        self._raw.append(raw)
        if REPLACE_MARK.match(text):
            return [self._finish(lineno)], "closed"
        if DIVIDER.match(text):
            self._dividers.append(len(self._body))
        self._body.append(text)
        return [], "open"

    def tail(self, count: int) -> list[str]:
        """The body's last `count` lines (a broken block may end with the next path line)."""
        return self._body[-count:]

    def _finish(self, lineno: int) -> ParsedItem:
        if not self._dividers:
            return self._reject(lineno, "expected '=======' between the SEARCH and REPLACE "
                                f"parts of the block {self._for()}(opened at line "
                                f"{self.line}), got '>>>>>>> REPLACE'; the block was not "
                                "applied")
        at = choose_divider(self._body, self._dividers, self._marker, self.line + 1)
        if isinstance(at, str):
            return self._reject(lineno, f"the block {self._for()}(opened at line {self.line}) "
                                f"{at}; the block was not applied")
        lines = _dedent(self._body[:at] + self._body[at + 1 :], self._indent)
        search = "".join(line + "\n" for line in lines[:at])
        replace = "".join(line + "\n" for line in lines[at:])
        # a weak path (a sentence before the block) only for a SEARCH: nothing is created
        path = self.path or (self._weak if search.strip() else None)
        if path is None:
            return self._reject(self.line, NO_PATH)
        hunk = Hunk(search, replace, line=self.line)
        return FileEdit("update", path, (hunk,), "search_replace", line=self.line)

    def close(self, lineno: int) -> list[ParsedItem]:
        wanted = "'>>>>>>> REPLACE'" if self._dividers else "'=======' and '>>>>>>> REPLACE'"
        return [self._reject(lineno, f"unfinished SEARCH/REPLACE block {self._for()}(opened "
                             f"at line {self.line}): the answer ended before {wanted}; the "
                             "block was not applied")]

    def take_returned(self) -> list[tuple[str, int]]:
        """No lines to read again: a broken block's tail is held again (`tail`)."""
        return []


_CONFLICT_OPEN = re.compile(r"<{7}(?:[ \t].*)?$")
_CONFLICT_CLOSE = re.compile(r">{7}(?:[ \t].*)?$")


def _width(line: str) -> int:
    return len(line.strip())


def _in_conflict(body: list[str], index: int) -> bool:
    """Whether body[index] is the middle of a `<<<<<<<` ... `>>>>>>>` conflict."""
    opened = False
    for line in body[:index]:
        if line[:1] == "<" and _CONFLICT_OPEN.match(line):
            opened = True
        elif line[:1] == ">" and _CONFLICT_CLOSE.match(line):
            opened = False
    return opened and any(line[:1] == ">" and _CONFLICT_CLOSE.match(line)
                          for line in body[index + 1 :])


def _is_title(line: str, width: int) -> bool:
    return (bool(line.strip()) and not line[0].isspace() and DIVIDER.match(line) is None
            and len(line.rstrip()) == width)


def _heading_rule(body: list[str], index: int) -> bool:
    """Whether body[index] underlines or overlines a heading of its own width."""
    line = body[index].rstrip()
    width = len(line)
    if line != line.lstrip():
        return False
    if index > 0 and _is_title(body[index - 1], width):
        return True
    if index + 2 >= len(body) or index == 0:
        return False
    before = body[index - 1]
    return ((not before.strip() or DIVIDER.match(before) is not None)
            and _is_title(body[index + 1], width) and body[index + 2].rstrip() == line)


def _echoes(body: list[str], index: int) -> bool:
    """Whether splitting at `index` gives a REPLACE that starts or ends as SEARCH does."""
    search, replace = body[:index], body[index + 1 :]
    if not search or not replace:
        return False
    first, last = search[0].strip(), search[-1].strip()
    return ((bool(first) and replace[0].strip() == first)
            or (bool(last) and replace[-1].strip() == last))


def choose_divider(body: list[str], candidates: list[int], marker: int,
                   first_line: int) -> int | str:
    """The index in `body` of the divider among `candidates`, or why it cannot be told."""
    if len(candidates) == 1:
        return candidates[0]
    left = [i for i in candidates if _width(body[i]) == marker] or candidates
    for rule, wanted in ((_in_conflict, False), (_heading_rule, False), (_echoes, True)):
        if len(left) > 1:
            left = [i for i in left if rule(body, i) == wanted] or left
    if len(left) == 1:
        return left[0]
    return _unclear(body, candidates, left, first_line)


def _unclear(body: list[str], candidates: list[int], left: list[int], first_line: int) -> str:
    """Why no divider among ``left`` could be told apart, and how to write the block."""
    where = ", ".join(str(first_line + i) for i in left)
    used = {_width(body[i]) for i in candidates}
    free = next((n for n in (9, 8, 6, 5, 7) if n not in used), None)
    advice = (f"write it again with {free}-character markers ('{'<' * free} SEARCH', "
              f"'{'=' * free}', '{'>' * free} REPLACE'), a length no '=' line of the text has"
              if free else "split it into blocks whose text has no line of only '='")
    return (f"has several lines that could be its '=======' divider (lines {where}), so "
            f"where SEARCH ends is unclear: {advice}")
