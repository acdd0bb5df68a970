"""The apply_patch envelope: its lines and the state of one open envelope.

`*** Begin Patch`, then file sections (`*** Add File: p` with `+` lines,
`*** Delete File: p`, `*** Update File: p` with an optional `*** Move to: q` and
hunks opened by `@@` or `@@ <anchor>` lines, body lines prefixed ` `/`-`/`+`, an
optional `*** End of File`), then `*** End Patch`. `PatchEnvelope` is fed the
lines after `*** Begin Patch` one at a time and emits each file section the moment
the next header (or `*** End Patch`) shows it is complete. A blank line inside a
hunk counts as an empty context line (between two `-` lines, a removed one;
between two `+` lines, an added one); blank lines before a header are dropped.
"""

from __future__ import annotations

import re
from typing import Literal

from spark_cli.edits.blocks import BlockRejected, EditKind, FileEdit, Hunk, ParsedItem

# Inside an envelope markers start the line (the caller strips the envelope's indent),
# so a context line whose text is "*** End Patch" (prefixed by a space) stays context.
BEGIN_PATCH = re.compile(r"([ \t]*)\*\*\* Begin Patch[ \t]*$")
END_PATCH = re.compile(r"\*\*\* End Patch[ \t]*$")
# A path may come in backticks or quotes: `*** Update File: `src/a.py``.
FILE_HEADER = re.compile(r"\*\*\* (Add|Delete|Update) File:[ \t]*([`'\"]?)(.*?)\2[ \t]*$")
_MOVE_TO = re.compile(r"\*\*\* Move to:[ \t]*[`'\"]?(.*?)[`'\"]?[ \t]*$")
_END_OF_FILE = re.compile(r"\*\*\* End of File[ \t]*$")
_HUNK_HEADER = re.compile(r"@@[ \t]*(.*?)[ \t]*$")
_UNIFIED_RANGE = re.compile(r"-\d+(?:,\d+)? \+\d+(?:,\d+)? @@[ \t]*(.*)$")

Status = Literal["open", "closed", "left"]
_KINDS: dict[str, EditKind] = {"Add": "add", "Delete": "delete", "Update": "update"}
_HINT = ("expected a line starting with ' ' (context: keep the leading space), '-' (remove) "
         "or '+' (add), an '@@' hunk header, '*** End of File' or a '*** ' file header")


def _quote(text: str, limit: int = 60) -> str:
    text = text.strip()
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def _anchor(text: str) -> str | None:
    """The anchor of a `@@` line (None for a bare `@@`); unified `@@ -1,2 +1,3 @@ f` → `f`."""
    match = _HUNK_HEADER.match(text)
    assert match is not None
    anchor = match.group(1) or ""
    unified = _UNIFIED_RANGE.match(anchor)
    if unified:
        anchor = unified.group(1).strip()
    return anchor or None


class _Section:
    """One file section being read."""

    __slots__ = ("anchors", "blanks", "body", "eof_seen", "header", "hunk_line", "hunks",
                 "kind", "line", "move_to", "path", "raw")

    def __init__(self, kind: EditKind, path: str, line: int, raw: str) -> None:
        self.kind, self.path, self.line = kind, path, line
        self.header = raw.strip()
        self.raw = [raw]
        self.move_to: str | None = None
        self.hunks: list[Hunk] = []
        self.anchors: list[str] = []
        self.body: list[tuple[str, str]] = []  # (prefix, text)
        self.blanks = 0  # blank lines seen after the last body line
        self.hunk_line = 0
        self.eof_seen = False

    def end_hunk(self, at_eof: bool = False) -> str | None:
        """Close the open hunk; returns an error message if it has no lines."""
        self.blanks = 0
        if not self.body:
            if self.anchors or at_eof:
                return f"the hunk at line {self.hunk_line} in {self.header} has no lines"
            return None
        search = "".join(t + "\n" for p, t in self.body if p != "+")
        replace = "".join(t + "\n" for p, t in self.body if p != "-")
        self.hunks.append(Hunk(search, replace, tuple(self.anchors), at_eof, self.hunk_line))
        self.anchors, self.body, self.hunk_line = [], [], 0
        return None


class PatchEnvelope:
    """One open `*** Begin Patch` envelope."""

    __slots__ = ("_section", "_skipping", "line")

    def __init__(self, line: int) -> None:
        self.line = line
        self._section: _Section | None = None
        self._skipping = False  # inside a section whose header was rejected

    def _reject(self, lineno: int, message: str) -> BlockRejected:
        section = self._section
        self._section = None
        path = section.path or None if section else None
        raw = "".join(section.raw) if section else ""
        return BlockRejected(f"line {lineno}: {message}", lineno, path, raw)

    def _finish(self, lineno: int) -> ParsedItem | None:
        """Emit the open section (it is complete: a header or End Patch follows)."""
        section = self._section
        if section is None:
            return None
        if section.kind == "update":
            error = section.end_hunk()
            if error:
                return self._reject(lineno, error + "; the section was not applied")
            if not section.hunks and not section.move_to:
                return self._reject(lineno, f"{section.header} has no hunks: expected '@@' "
                                    "and ' '/'-'/'+' lines; the section was not applied")
        self._section = None
        hunks = tuple(section.hunks)
        if section.kind == "add":
            content = "".join(t + "\n" for _p, t in section.body)
            hunks = (Hunk("", content, line=section.line),)
        return FileEdit(section.kind, section.path, hunks, "apply_patch", section.move_to,
                        section.line)

    def feed(self, text: str, raw: str, lineno: int) -> tuple[list[ParsedItem], Status]:
        """Take one line. "closed": End Patch consumed; "left": this line is not part of
        the envelope (it ended broken) and must be read again as prose."""
        items: list[ParsedItem] = []
        if text.startswith("***"):
            status = self._marker_line(text, raw, lineno, items)
            if status is not None:
                return items, status
        section = self._section
        if section is None and self._skipping:
            # The rejected section's own lines are dropped; anything else ends the envelope.
            keep = not text or text[0] in " -+@\\" or text.startswith("*** ")
            return items, ("open" if keep else "left")
        if section is None:
            if text.strip():
                items.append(self._reject(lineno, "expected a '*** Add File:', '*** Update "
                                          "File:' or '*** Delete File:' header, got "
                                          f"{_quote(text)}"))
                return items, "left"
            return items, "open"
        error = self._body_line(section, text, raw, lineno)
        if error:
            items.append(self._reject(lineno, error))
            if text[0] in " -+":  # still a hunk line: skip the rest of this section
                self._skipping = True
                return items, "open"
            return items, "left"  # maybe prose after a missing End Patch
        return items, "open"

    def _marker_line(self, text: str, raw: str, lineno: int,
                     items: list[ParsedItem]) -> Status | None:
        if END_PATCH.match(text):
            self._push(items, self._finish(lineno))
            return "closed"
        header = FILE_HEADER.match(text)
        if header:
            self._push(items, self._finish(lineno))
            kind, path = _KINDS[header.group(1)], header.group(3)
            if not path:
                items.append(BlockRejected(
                    f"line {lineno}: '*** {header.group(1)} File:' needs a relative path, e.g. "
                    f"'*** {header.group(1)} File: src/app.py'; the section was not applied",
                    lineno, None, raw))
                self._skipping = True
                return "open"
            self._skipping = False
            self._section = _Section(kind, path, lineno, raw)
            return "open"
        if text.startswith("*** Begin Patch"):  # a new envelope: the previous one lacked End Patch
            self._push(items, self._finish(lineno))
            return "open"
        section = self._section
        move = _MOVE_TO.match(text)
        if move and section is not None:
            section.raw.append(raw)
            if section.kind != "update" or section.hunks or section.body or section.move_to:
                items.append(self._reject(lineno, "'*** Move to:' must follow '*** Update "
                                          "File:' directly; the section was not applied"))
                self._skipping = True
                return "open"
            if not move.group(1):
                items.append(self._reject(lineno, "'*** Move to:' needs a relative path; the "
                                          "section was not applied"))
                self._skipping = True
                return "open"
            section.move_to = move.group(1)
            return "open"
        if _END_OF_FILE.match(text) and section is not None:
            section.raw.append(raw)
            error = (section.end_hunk(at_eof=True) if section.kind == "update"
                     else f"'*** End of File' only belongs in an update hunk ({section.header})")
            if error:
                items.append(self._reject(lineno, error + "; the section was not applied"))
                self._skipping = True
                return "open"
            section.eof_seen = True
            return "open"
        return None

    @staticmethod
    def _push(items: list[ParsedItem], item: ParsedItem | None) -> None:
        if item is not None:
            items.append(item)

    def _body_line(self, section: _Section, text: str, raw: str, lineno: int) -> str | None:
        """Add one body line to `section`; returns an error message for a bad line."""
        if not text or (section.kind == "delete" and not text.strip()):
            # A truly empty line: models drop the space of an empty context line. It
            # counts once a body line follows; blank lines before a header are dropped.
            section.raw.append(raw)
            if section.body:
                section.blanks += 1
            return None
        prefix = text[0]
        if section.kind == "delete":
            return (f"{section.header} takes no lines, got {_quote(text)}; "
                    "the section was not applied")
        if section.kind == "add":
            if prefix != "+":
                return (f"every line of {section.header} must start with '+', got "
                        f"{_quote(text)}; the section was not applied")
            section.raw.append(raw)
            section.body.extend([("+", "")] * section.blanks)
            section.blanks = 0
            section.body.append(("+", text[1:]))
            return None
        if prefix == "@" and text.startswith("@@"):
            section.raw.append(raw)
            if section.body:
                section.end_hunk()
            if not section.anchors:
                section.hunk_line = lineno
            anchor = _anchor(text)
            if anchor:
                section.anchors.append(anchor)
            section.eof_seen = False
            return None
        if prefix not in " -+":
            if prefix == "\\":  # "\ No newline at end of file" from unified diffs
                section.raw.append(raw)
                return None
            return (f"unknown hunk line {_quote(text)} in {section.header}: {_HINT}; "
                    "the section was not applied")
        if section.eof_seen:
            return (f"expected '@@' or a '*** ' file header after '*** End of File' in "
                    f"{section.header}, got {_quote(text)}; the section was not applied")
        section.raw.append(raw)
        if not section.hunk_line:
            section.hunk_line = lineno
        # An empty line between two removed (added) lines was removed (added) too: the
        # model dropped its '-' ('+'); elsewhere it is an empty context line.
        same = prefix != " " and bool(section.body) and section.body[-1][0] == prefix
        section.body.extend([(prefix if same else " ", "")] * section.blanks)
        section.blanks = 0
        section.body.append((prefix, text[1:]))
        return None

    def close(self, lineno: int) -> list[ParsedItem]:
        """The stream ended before `*** End Patch`: the open section is never applied."""
        if self._section is None:
            return []
        header = self._section.header
        return [self._reject(lineno, f"unfinished {header} (opened at line "
                             f"{self._section.line}): the answer ended before '*** End Patch'; "
                             "the section was not applied")]
