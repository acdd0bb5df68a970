"""The apply_patch envelope (docs/edits.md, "The apply_patch envelope"): `PatchEnvelope`
is fed the lines after `*** Begin Patch` and emits each file section once the next
header (or `*** End Patch`) shows it is complete."""

from __future__ import annotations

import re
from typing import Literal

from spark_cli.edits.formats.patch_section import HINT, PatchSection, quote
from spark_cli.edits.model.blocks import BlockRejected, EditKind, FileEdit, Hunk, ParsedItem

# markers start the line (the envelope's indent stripped): " *** End Patch" is context
BEGIN_PATCH = re.compile(r"([ \t]*)\*\*\* Begin Patch[ \t]*$")
END_PATCH = re.compile(r"\*\*\* End Patch[ \t]*$")
# A path may come in backticks or quotes: `*** Update File: `src/a.py``.
FILE_HEADER = re.compile(r"\*\*\* (Add|Delete|Update) File:[ \t]*([`'\"]?)(.*?)\2[ \t]*$")
_MOVE_TO = re.compile(r"\*\*\* Move to:[ \t]*[`'\"]?(.*?)[`'\"]?[ \t]*$")
_END_OF_FILE = re.compile(r"\*\*\* End of File[ \t]*$")
_MARKER = re.compile(r"\*\*\* (?:Begin Patch|End Patch|(?:Add|Delete|Update) File:|Move to:|"
                     r"End of File)")
# an unprefixed fence or SEARCH/REPLACE marker: the envelope ended without End Patch
_BREAKER = re.compile(r"[ \t]*(?:`{3}|~{3}|<{5,9}[ \t]*SEARCH|>{5,9}[ \t]*REPLACE)")
_LOOSE_LIMIT = 20  # unprefixed lines held back at most (a context run is rarely longer)
_LOOSE_LIMIT_ADD = 5000  # in an added file: its whole text may lack the '+'

Status = Literal["open", "closed", "left"]
_KINDS: dict[str, EditKind] = {"Add": "add", "Delete": "delete", "Update": "update"}


class PatchEnvelope:
    """One open `*** Begin Patch` envelope; held lines that prove prose are given back."""

    __slots__ = ("_indent", "_indent_seen", "_maybe_end", "_returned", "_section", "_skipping",
                 "line")

    def __init__(self, line: int, indent: str = "") -> None:
        self.line = line
        self._indent = indent  # of '*** Begin Patch': the whole envelope's, if its next line has it
        self._indent_seen = not indent
        self._section: PatchSection | None = None
        self._skipping = False  # inside a section whose header was rejected
        self._maybe_end: tuple[str, str, int] | None = None  # an indented '*** End Patch'
        self._returned: list[tuple[str, int]] = []  # (raw, line) to read again as prose

    def take_returned(self) -> list[tuple[str, int]]:
        """Held lines given up as prose (raw, line number), to be read again."""
        returned, self._returned = self._returned, []
        return returned

    def _reject(self, lineno: int, message: str) -> BlockRejected:
        section = self._section
        self._section = None
        path = section.path or None if section else None
        raw = "".join(section.raw) if section else ""
        return BlockRejected(f"line {lineno}: {message}", lineno, path, raw)

    def _finish(self, lineno: int, items: list[ParsedItem]) -> None:
        """Emit the open section, if any (a header or End Patch follows)."""
        section = self._section
        if section is None:
            return
        error = section.end_hunk() if section.kind == "update" else None
        if section.kind == "update" and not error and not section.hunks and not section.move_to:
            error = f"{section.header} has no hunks: expected '@@' and ' '/'-'/'+' lines"
        if error:
            items.append(self._reject(lineno, error + "; the section was not applied"))
            return
        self._section = None
        hunks = tuple(section.hunks)
        if section.kind == "add":
            content = "".join(t + "\n" for _p, t in section.body)
            hunks = (Hunk("", content, line=section.line),)
        items.append(FileEdit(section.kind, section.path, hunks, "apply_patch",
                              section.move_to, section.line))

    def feed(self, text: str, raw: str, lineno: int) -> tuple[list[ParsedItem], Status]:
        """Take one line. "closed": End Patch consumed; "left": read this line again as prose,
        after the `take_returned` lines."""
        if not self._indent_seen and text.strip():
            self._indent_seen = True
            if not text.startswith(self._indent):
                self._indent = ""  # only '*** Begin Patch' was padded
        if self._indent and text.startswith(self._indent):
            text = text[len(self._indent):]
        items: list[ParsedItem] = []
        section = self._section
        if self._maybe_end is not None and section is not None:
            status = self._after_held_end(section, text, items)
            if status is not None:
                return items, status
        if section is None and not self._skipping and text[:1] in " \t":
            text = text.lstrip() if _MARKER.match(text.lstrip()) else text  # padded header
        if text.startswith("***") and _MARKER.match(text):
            status = self._at_marker(section, text, raw, lineno, items)
            if status is not None:
                return items, status
        return items, self._body_line(section, text, raw, lineno, items)

    def _after_held_end(self, section: PatchSection, text: str,
                        items: list[ParsedItem]) -> Status | None:
        """The line after an indented End Patch: the end, or it was context."""
        assert self._maybe_end is not None
        if not self._continues(section, text):  # the indented End Patch was the end
            self._end_at(self._maybe_end[2], items)
            return "left"
        held, self._maybe_end = self._maybe_end, None  # it was a context line
        error = section.settle_loose() or section.add_line(*held)
        if error:
            return self._broken(items, held[2], error)
        return None

    def _at_marker(self, section: PatchSection | None, text: str, raw: str, lineno: int,
                   items: list[ParsedItem]) -> Status | None:
        """A '***' marker line (held loose lines settled first)."""
        if section is not None and section.loose:
            if text.startswith("*** Begin Patch"):  # prose, then the next envelope
                section.loose, loose = [], section.loose
                self._finish(lineno, items)
                self._returned = [(r, n) for _t, r, n in loose]
                return "left"
            error = section.settle_loose(hunk_ends=True)
            if error:
                return self._broken(items, lineno, error)
        return self._marker_line(text, raw, lineno, items)

    def _body_line(self, section: PatchSection | None, text: str, raw: str, lineno: int,
                   items: list[ParsedItem]) -> Status:
        if section is not None and text[:1] in " \t" and "*** End Patch" in text \
                and END_PATCH.match(text.lstrip()):
            self._maybe_end = (text, raw, lineno)  # padded, or a context line reading so
            return "open"
        if section is not None and section.kind != "delete" and (section.loose or (
                text and text[0] not in section.prefixes
                and not self._continues(section, text) and text.strip())):
            status = self._loose_line(section, text, raw, lineno, items)
            if status is not None:
                return status
        return self._hunk_line(section, text, raw, lineno, items)

    def _hunk_line(self, section: PatchSection | None, text: str, raw: str, lineno: int,
                   items: list[ParsedItem]) -> Status:
        if section is None and self._skipping:
            # The rejected section's own lines are dropped; anything else ends the envelope.
            keep = not text or text[0] in " -+@\\" or text.startswith("*** ")
            return "open" if keep else "left"
        if section is None:
            if text.strip():
                items.append(self._reject(lineno, "expected a '*** Add File:', '*** Update "
                                          "File:' or '*** Delete File:' header, got "
                                          f"{quote(text)}"))
                return "left"
            return "open"
        error = section.add_line(text, raw, lineno)
        if error and text[0] in " -+":  # still a hunk line: skip the rest of this section
            return self._broken(items, lineno, error)
        if error:
            items.append(self._reject(lineno, error))
            return "left"  # maybe prose after a missing End Patch
        return "open"

    @staticmethod
    def _continues(section: PatchSection, text: str) -> bool:
        """Whether ``text`` reads as a line of the section or a marker."""
        if not text:
            return False
        if text[0] in section.prefixes:
            return True
        if section.kind == "update" and (text[0] == "\\" or text.startswith("@@")):
            return True
        return text[0] == "*" and _MARKER.match(text) is not None

    def _end_at(self, lineno: int, items: list[ParsedItem]) -> list[ParsedItem]:
        self._maybe_end = None
        error = self._section.settle_loose(hunk_ends=True) if self._section is not None else None
        if error:
            self._broken(items, lineno, error)
        else:
            self._finish(lineno, items)
        return items

    def _broken(self, items: list[ParsedItem], lineno: int, error: str) -> Status:
        """Reject the open section; its remaining lines are skipped."""
        items.append(self._reject(lineno, error))
        self._skipping = True
        return "open"

    def _loose_line(self, section: PatchSection, text: str, raw: str, lineno: int,
                    items: list[ParsedItem]) -> Status | None:
        """An unprefixed line, held until it proves context or prose (a fence, too many)."""
        if self._continues(section, text):
            error = section.settle_loose(hunk_ends=text.startswith("@@"))
            if error:
                return self._broken(items, lineno, error)
            return None
        limit = _LOOSE_LIMIT_ADD if section.kind == "add" else _LOOSE_LIMIT
        if text.strip() and (_BREAKER.match(text) or len(section.loose) >= limit):
            first = next((e for e in section.loose if e[0].strip()), (text, raw, lineno))
            self._returned = [(r, n) for _t, r, n in section.loose]
            what = (f"every line of {section.header} must start with '+', got "
                    f"{quote(first[0])}" if section.kind == "add" else
                    f"unknown hunk line {quote(first[0])} in {section.header}: {HINT}")
            items.append(self._reject(first[2], what + "; the section was not applied"))
            return "left"
        section.loose.append((text, raw, lineno))
        return "open"

    def _marker_line(self, text: str, raw: str, lineno: int,
                     items: list[ParsedItem]) -> Status | None:
        if END_PATCH.match(text):
            self._finish(lineno, items)
            return "closed"
        header = FILE_HEADER.match(text)
        if header:
            self._finish(lineno, items)
            kind, path = _KINDS[header.group(1)], header.group(3)
            if not path:
                items.append(BlockRejected(
                    f"line {lineno}: '*** {header.group(1)} File:' needs a relative path, e.g. "
                    f"'*** {header.group(1)} File: src/app.py'; the section was not applied",
                    lineno, None, raw))
                self._skipping = True
                return "open"
            self._skipping = False
            self._section = PatchSection(kind, path, lineno, raw)
            return "open"
        if text.startswith("*** Begin Patch"):  # a new envelope: the previous one lacked End Patch
            self._finish(lineno, items)
            return "open"
        section = self._section
        move = _MOVE_TO.match(text)
        if move and section is not None:
            section.raw.append(raw)
            if section.kind != "update" or section.hunks or section.body or section.move_to:
                return self._broken(items, lineno, "'*** Move to:' must follow '*** Update "
                                    "File:' directly; the section was not applied")
            if not move.group(1):
                return self._broken(items, lineno, "'*** Move to:' needs a relative path; "
                                    "the section was not applied")
            section.move_to = move.group(1)
            return "open"
        if _END_OF_FILE.match(text) and section is not None:
            section.raw.append(raw)
            if section.kind == "add":
                return "open"  # an added file ends where its lines end anyway
            error = (section.end_hunk(at_eof=True) if section.kind == "update"
                     else f"'*** End of File' only belongs in an update hunk ({section.header})")
            if error:
                return self._broken(items, lineno, error + "; the section was not applied")
            section.eof_seen = True
            return "open"
        return None

    def close(self, lineno: int) -> list[ParsedItem]:
        """The stream ended before `*** End Patch`: the open section is refused."""
        if self._maybe_end is not None and self._section is not None:
            return self._end_at(self._maybe_end[2], [])
        if self._section is None:
            return []
        self._returned = [(r, n) for _t, r, n in self._section.loose]
        header = self._section.header
        return [self._reject(lineno, f"unfinished {header} (opened at line "
                             f"{self._section.line}): the answer ended before '*** End Patch'; "
                             "the section was not applied")]
