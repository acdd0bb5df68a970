"""Lines around edit blocks: fences, path lines, heredoc openers (`classify`, `can_hold`),
and `may_be_special`, which holds back every head such a line can start with."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from spark_cli.edits.formats.path_hints import info_path, looks_like_path
from spark_cli.record import record

HEAD = 256  # how much of a partial line the release test looks at

_HEREDOC_WORDS = r"(?:apply_patch|applypatch|cat|bash|sh|zsh|python3?|git)"
_TWO_TOKENS = re.compile(r"\S\s+\S")
# Starts that may still grow into a special line even with several words.
_FILE_LABEL = r"(?:(?i:file(?:name)?|path)[ \t]*:(?:\*\*)?[ \t]*)"  # "File: " before a path
# A path line may sit in a heading or a comment: "## src/a.py", "// src/a.ts", "<!-- a.html -->".
_PATH_LEAD = r"(?:#{1,6}[ \t]+|//[ \t]*|--[ \t]+|/\*[ \t]*|<!--[ \t]*)?"
_PATH_TAIL = r"(?:[ \t]*(?:\*/|-->))?"
_PATH_TAIL_START = r"(?:[ \t]*(?:\*/?|-{1,2}>?))?"  # every start of a _PATH_TAIL
_HOLD_START = re.compile(
    r"[ \t]*(?:<{1,4}$|<{5}|<(?:f(?:i(?:le?)?)?)?$|<file\b|>{1,4}$|>{5}|`{1,2}$|`{3}|~{1,2}$|~{3}|"
    r"\*\*|\$[ \t]"
    r"|" + _PATH_LEAD + r"(?:\*\*)?" + _FILE_LABEL + r"?\S*" + _PATH_TAIL_START + r"[ \t]*$|"
    + _HEREDOC_WORDS + r"[ \t])"
)
_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})[ \t]*(.*?)[ \t]*$")
_FENCE_CLOSE = re.compile(r"[ \t]*(`{3,}|~{3,})[ \t]*$")
_HEREDOC = re.compile(
    r"[ \t]*(?:\$[ \t]*)?" + _HEREDOC_WORDS + r"\b.*?<<-?[ \t]*(['\"]?)(\w+)\1"
)
_PATH_LINE = re.compile(
    r"[ \t]*" + _PATH_LEAD + r"(?:\*\*)?(?P<label>" + _FILE_LABEL
    + r")?`?(?P<path>[^\s`*]+?)`?:?(?:\*\*)?:?" + _PATH_TAIL + r"[ \t]*$"
)

# An XML-ish tag naming the file: <file path="src/a.py">, <file name='a.py'>.
_FILE_TAG = re.compile(r"""[ \t]*<file\b[^>]*?\b(?:path|name|filename)[ \t]*=[ \t]*(["'])"""
                       r"""([^"'<>]+)\1[^>]*>[ \t]*$""")
# A line number or range after a path (`src/a.py:12`, `src/a.py:12-20`, `src/a.py#L12-L20`).
_LINE_RANGE = re.compile(r"(?::\d+(?:[-:]\d+)?|#L\d+(?:-L?\d+)?)$")
# Inside a broken block only a line that clearly names a file counts as a path line.
_LIKELY_PATH = re.compile(r"`?[\w.\-]*[\w\-]+[./][\w./\-]+`?:?$")


def may_be_special(head: str) -> bool:
    """Whether a line starting with `head` could still be a marker, fence or path line."""
    return _TWO_TOKENS.search(head) is None or _HOLD_START.match(head) is not None


@dataclass(slots=True)
class Fence:
    """An open Markdown code fence: its character, its length, who opened it."""

    char: str
    length: int
    consumed: bool  # opened by a block (its closing line is swallowed), not by prose

    def closed_by(self, text: str) -> bool:
        match = _FENCE_CLOSE.match(text)
        return (match is not None and match.group(1)[0] == self.char
                and len(match.group(1)) >= self.length)


@record
class FenceLine:
    """An opening code fence: its character, its length, the path its info string names."""

    char: str
    length: int
    info_path: str | None
    kind: ClassVar[str] = "fence"


@record
class HeredocLine:
    """A heredoc opener around a patch (``apply_patch <<'EOF'``): its terminator."""

    terminator: str
    kind: ClassVar[str] = "heredoc"


@record
class PathLine:
    """A line that names a file (``src/app.py``, ``## src/app.py``, ``File: a.py``)."""

    path: str
    kind: ClassVar[str] = "path"


Opener = FenceLine | HeredocLine | PathLine


def classify(text: str, open_fence: Fence | None) -> Opener | None:
    """The `FenceLine`, `HeredocLine` or `PathLine` that ``text`` is, or None."""
    fence = _FENCE.match(text)
    if fence is not None:
        char, info = fence.group(1)[0], fence.group(2)
        if char == "`" and "`" in info:
            return None
        if open_fence is not None and not (open_fence.consumed and info):
            return None
        return FenceLine(char, len(fence.group(1)), info_path(info))
    heredoc = _HEREDOC.match(text)
    if heredoc is not None and "patch" in text:
        return HeredocLine(heredoc.group(2))
    tag = _FILE_TAG.match(text)
    if tag is not None and looks_like_path(tag.group(2)):
        return PathLine(tag.group(2))
    path = _PATH_LINE.match(text)
    if path is not None:
        value = _LINE_RANGE.sub("", path.group("path"))  # src/a.py:12-20 names src/a.py
        if value and (path.group("label") or looks_like_path(value)):
            return PathLine(value)
    return None


_FOLLOWS = {"path": ("fence",), "fence": ("path", "heredoc"), "heredoc": ()}


@record
class Held:
    """A held line: its raw text and what it opens (None: a blank line after a path line)."""

    raw: str
    opener: Opener | None

    @property
    def kind(self) -> str:
        return self.opener.kind if self.opener is not None else "blank"


def can_hold(held: list[Held], kind: str) -> bool:
    """Whether a line of `kind` can join the `held` lines."""
    if kind == "blank":
        return bool(held) and held[-1].kind == "path"
    kinds = [h.kind for h in held if h.opener is not None]
    return not kinds or (len(kinds) < 2 and kind in _FOLLOWS[kinds[-1]])


def hold_tail(held: list[Held], lines: list[str], fence: Fence | None) -> None:
    """Hold the last lines of a broken block again if they may introduce the next one."""
    for text in lines:
        candidate = classify(text, fence) if may_be_special(text[:HEAD]) else None
        if isinstance(candidate, PathLine) and not _LIKELY_PATH.match(text.strip()):
            candidate = None
        if candidate is None or (held and candidate.kind not in _FOLLOWS[held[-1].kind]):
            held.clear()
        if candidate is not None:
            held.append(Held(text + "\n", candidate))


def fenced_path(held: list[Held], text: str) -> str | None:
    """The path line of a held fence holding nothing else, when ``text`` closes the fence."""
    lines = [h for h in held if h.opener is not None]
    if len(lines) != 2:
        return None
    fence, path = lines[0].opener, lines[1].opener
    if not isinstance(fence, FenceLine) or not isinstance(path, PathLine):
        return None
    if not Fence(fence.char, fence.length, consumed=False).closed_by(text):
        return None
    return lines[1].raw.rstrip("\r\n")
