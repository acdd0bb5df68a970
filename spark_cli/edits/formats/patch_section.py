"""One file section of an apply_patch envelope, read line by line: `@@` headers (a unified
`@@ -1,2 +1,3 @@ f` keeps only `f`), ` `/`-`/`+` lines, and the blank or unprefixed lines
models write where a prefix was dropped."""

from __future__ import annotations

import re

from spark_cli.edits.model.blocks import EditKind, Hunk

_HUNK_HEADER = re.compile(r"@@[ \t]*(.*?)[ \t]*$")
_UNIFIED_RANGE = re.compile(r"-\d+(?:,\d+)? \+\d+(?:,\d+)? @@[ \t]*(.*)$")
HINT = ("expected a line starting with ' ' (context: keep the leading space), '-' (remove) "
        "or '+' (add), an '@@' hunk header, '*** End of File' or a '*** ' file header")


def quote(text: str, limit: int = 60) -> str:
    text = text.strip()
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def hunk_anchor(text: str) -> str | None:
    """The anchor of a `@@` line (None for a bare `@@`); unified `@@ -1,2 +1,3 @@ f` → `f`."""
    match = _HUNK_HEADER.match(text)
    assert match is not None
    anchor = match.group(1) or ""
    unified = _UNIFIED_RANGE.match(anchor)
    if unified:
        anchor = unified.group(1).strip()
    return anchor or None


class PatchSection:
    __slots__ = ("anchors", "blanks", "body", "eof_seen", "header", "hunk_line", "hunks",
                 "kind", "line", "loose", "lost", "move_to", "path", "prefixes", "raw")

    def __init__(self, kind: EditKind, path: str, line: int, raw: str) -> None:
        self.kind, self.path, self.line = kind, path, line
        self.prefixes = "+" if kind == "add" else " -+"  # what its body lines start with
        self.header = raw.strip()
        self.raw = [raw]
        self.move_to: str | None = None
        self.hunks: list[Hunk] = []
        self.anchors: list[str] = []
        self.body: list[tuple[str, str]] = []  # (prefix, text)
        self.blanks = 0  # blank lines seen after the last body line
        self.hunk_line = 0
        self.eof_seen = False
        # (text, raw, line): unprefixed lines held until the next line tells what they were
        self.loose: list[tuple[str, str, int]] = []
        self.lost: set[int] = set()  # body entries that were unprefixed context lines

    def end_hunk(self, at_eof: bool = False) -> str | None:
        """Close the open hunk; returns an error message if it has no lines."""
        self.blanks = 0
        if not self.body:
            if self.anchors or at_eof:
                return f"the hunk at line {self.hunk_line} in {self.header} has no lines"
            return None
        search = "".join(t + "\n" for p, t in self.body if p != "+")
        replace = "".join(t + "\n" for p, t in self.body if p != "-")
        self.hunks.append(Hunk(search, replace, tuple(self.anchors), at_eof, self.hunk_line,
                               self._literal()))
        self.anchors, self.body, self.hunk_line, self.lost = [], [], 0, set()
        return None

    def _literal(self) -> tuple[str, str] | None:
        """The hunk with each ' ' context line read whole, its space kept; None when the same."""
        literal = [(p, " " + t if p == " " and t and k not in self.lost else t)
                   for k, (p, t) in enumerate(self.body)]
        if all(t == u for (_p, t), (_q, u) in zip(self.body, literal, strict=True)):
            return None
        return ("".join(t + "\n" for p, t in literal if p != "+"),
                "".join(t + "\n" for p, t in literal if p != "-"))

    def _added_line(self, text: str, raw: str) -> str | None:
        if text[0] != "+":
            return (f"every line of {self.header} must start with '+', got "
                    f"{quote(text)}; the section was not applied")
        self.raw.append(raw)
        self.body.extend([("+", "")] * self.blanks)
        self.blanks = 0
        self.body.append(("+", text[1:]))
        return None

    def add_line(self, text: str, raw: str, lineno: int) -> str | None:
        """Add one body line; returns an error message for a bad line."""
        if not text or (self.kind != "update" and not text.strip()):
            # an empty context line lost its space: it counts once a body line follows
            self.raw.append(raw)
            if self.body:
                self.blanks += 1
            return None
        prefix = text[0]
        if self.kind == "delete":
            return (f"{self.header} takes no lines, got {quote(text)}; "
                    "the section was not applied")
        if self.kind == "add":
            return self._added_line(text, raw)
        if prefix == "@" and text.startswith("@@"):
            self.raw.append(raw)
            if self.body:
                self.end_hunk()
            if not self.anchors:
                self.hunk_line = lineno
            anchor = hunk_anchor(text)
            if anchor:
                self.anchors.append(anchor)
            self.eof_seen = False
            return None
        if prefix not in " -+":
            if prefix == "\\":  # "\ No newline at end of file" from unified diffs
                self.raw.append(raw)
                return None
            return (f"unknown hunk line {quote(text)} in {self.header}: {HINT}; "
                    "the section was not applied")
        if self.eof_seen:
            return (f"expected '@@' or a '*** ' file header after '*** End of File' in "
                    f"{self.header}, got {quote(text)}; the section was not applied")
        self.raw.append(raw)
        if not self.hunk_line:
            self.hunk_line = lineno
        # an empty line between two removed (added) lines lost its '-' ('+')
        if self.blanks:
            same = prefix != " " and bool(self.body) and self.body[-1][0] == prefix
            self.body.extend([(prefix if same else " ", "")] * self.blanks)
            self.blanks = 0
        self.body.append((prefix, text[1:]))
        return None

    def settle_loose(self, hunk_ends: bool = False) -> str | None:
        """The held unprefixed lines as context (dropped at a hunk's end that has context)."""
        if hunk_ends and self.kind == "update" and self.loose \
                and any(p != "+" for p, _t in self.body):
            self.loose = []
            return None
        loose, self.loose = self.loose, []
        prefix = "+" if self.kind == "add" else " "  # an added file's lines lost their '+'
        for text, raw, lineno in loose:
            before = len(self.body)
            error = self.add_line(text if not text.strip() else prefix + text, raw, lineno)
            if error:
                return error
            if len(self.body) > before and text.strip():
                self.lost.add(len(self.body) - 1)
        return None
