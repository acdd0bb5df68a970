"""What a brain has looked at with spark's read-only tools, read from the conversation: this
turn's calls and outputs (:class:`Lookups`) and a file's ``read_file`` windows joined
(:class:`ReadWindows`), in the tools' fixed formats (docs/brains.md)."""

from __future__ import annotations

import itertools
import json
import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from spark_cli.engine.brains.base import CALL, OUTPUT, BrainCall, BrainRequest, BrainTurn
from spark_cli.record import record

_NUMBERED = re.compile(r" *(\d+)\t(.*)")
_WINDOW = re.compile(r"\[lines \d+[–-]\d+ of (\d+);")
_HIT = re.compile(r"(.+?):(\d+):")


@record
class ReadResult:
    """A ``read_file`` result: its numbered lines, the file's line count (None: all shown)."""

    lines: tuple[tuple[int, str], ...] = ()
    total: int | None = None
    error: str = ""


@record
class Listing:
    """A ``search`` or ``list_files`` result: its paths (those shown), or its error."""

    paths: tuple[str, ...] = ()
    error: str = ""


def clean_path(path: str) -> str:
    """A repo-relative path as the brains key files (``./a//b.py`` -> ``a/b.py``)."""
    path = posixpath.normpath(path.strip()).lstrip("/")
    return "" if path == "." else path


def parse_read(output: str) -> ReadResult:
    lines: list[tuple[int, str]] = []
    total = None
    rows = output.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    for row in rows:
        numbered = _NUMBERED.fullmatch(row)
        if numbered:
            lines.append((int(numbered.group(1)), numbered.group(2)))
            continue
        found = _WINDOW.match(row)
        if found and lines:
            total = int(found.group(1))
            continue
        if not lines:
            return ReadResult(error=row.strip() or "empty result")
    return ReadResult(tuple(lines), total)


def parse_search(output: str) -> Listing:
    paths: dict[str, None] = {}
    other = ""
    for row in output.split("\n"):
        hit = _HIT.match(row)
        if hit:
            paths[clean_path(hit.group(1))] = None
        elif row.strip() and not row.startswith("[") and not other:
            other = row.strip()
    if not paths and other and other != "no matches":
        return Listing(error=other)
    return Listing(tuple(paths))


def parse_list(output: str) -> Listing:
    paths: list[str] = []
    for row in output.split("\n"):
        row = row.strip()
        if row and not row.startswith("["):  # not a note ("[3 more files not shown]")
            if " " in row and not paths and ("error" in row.lower() or ":" in row):
                return Listing(error=row)
            paths.append(clean_path(row))
    return Listing(tuple(paths))


READ_FILE, SEARCH, LIST_FILES = "read_file", "search", "list_files"
LOOK_TOOLS = frozenset({READ_FILE, SEARCH, LIST_FILES})
MAX_ROUNDS = 6
"""Tool rounds a brain makes in one turn at most; then it answers with what it has."""


def can_look(request: BrainRequest) -> bool:
    """Does the request let the brain call all three read-only tools?"""
    return request.tools >= LOOK_TOOLS


def call(name: str, **arguments: Any) -> BrainCall:
    """A call with its arguments written as JSON (``None`` values left out)."""
    return BrainCall(name, json.dumps({k: v for k, v in arguments.items() if v is not None}))


def _arguments(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


@record
class Lookup:
    """One call of this turn and its output (None: not answered)."""

    name: str
    arguments: dict[str, Any]
    output: str | None

    @property
    def path(self) -> str:
        value = self.arguments.get("path")
        return clean_path(value) if isinstance(value, str) else ""


@record
class Lookups:
    """The tool calls this turn made, with their outputs, and how many rounds made them."""

    calls: tuple[Lookup, ...] = ()
    rounds: int = 0
    """Responses of this turn that made calls."""

    def searches(self) -> list[tuple[Lookup, Listing]]:
        return [(c, parse_search(c.output)) for c in self.calls
                if c.name == SEARCH and c.output is not None]

    def listings(self) -> list[tuple[Lookup, Listing]]:
        return [(c, parse_list(c.output)) for c in self.calls
                if c.name == LIST_FILES and c.output is not None]

    def searched(self, pattern: str) -> bool:
        return any(c.name == SEARCH and c.arguments.get("pattern") == pattern
                   for c in self.calls)

    def listed(self, path: str) -> bool:
        return any(c.name == LIST_FILES and c.path == clean_path(path) for c in self.calls)

    def asked_to_read(self, path: str) -> bool:
        return any(c.name == READ_FILE and c.path == path for c in self.calls)

    def read_errors(self) -> list[tuple[str, str]]:
        """``(path, error)`` of each read that failed."""
        return [(c.path, error) for c in self.calls if c.name == READ_FILE
                and c.output is not None and (error := parse_read(c.output).error)]

    @property
    def exhausted(self) -> bool:
        return self.rounds >= MAX_ROUNDS


def lookups(request: BrainRequest) -> Lookups:
    """This turn's calls (after the latest user message) with their outputs."""
    conversation = request.conversation
    start = next((at + 1 for at in range(len(conversation) - 1, -1, -1)
                  if conversation[at].role == "user"), 0)
    outputs = {t.call_id: t.text for t in conversation[start:] if t.role == OUTPUT}
    found: list[Lookup] = []
    rounds = 0
    previous: BrainTurn | None = None
    for turn in conversation[start:]:
        if turn.role == CALL:
            if previous is None or previous.role != CALL:
                rounds += 1
            found.append(Lookup(turn.name, _arguments(turn.text), outputs.get(turn.call_id)))
        previous = turn
    return Lookups(tuple(found), rounds)


@dataclass(slots=True)
class ReadWindows:
    """Each path's lines seen so far in ``read_file`` results; a path's text once whole."""

    lines: dict[str, dict[int, str]] = field(default_factory=dict)
    pending: dict[str, str] = field(default_factory=dict)
    """call_id -> path of the read calls seen (their outputs come later)."""

    def called(self, turn: BrainTurn) -> None:
        if turn.name == READ_FILE:
            path = _arguments(turn.text).get("path")
            if isinstance(path, str) and clean_path(path):
                self.pending[turn.call_id] = clean_path(path)

    def answered(self, turn: BrainTurn) -> tuple[str, str] | None:
        """``(path, text)`` when this output completes a file, else None."""
        path = self.pending.pop(turn.call_id, None)
        if path is None:
            return None
        result: ReadResult = parse_read(turn.text)
        if result.error:
            return None
        if result.total is None:
            self.lines.pop(path, None)
            return path, _text(dict(result.lines))
        seen = self.lines.setdefault(path, {})
        seen.update(result.lines)
        if all(n in seen for n in range(1, result.total + 1)):
            return path, _text(self.lines.pop(path))
        return None

    def missing(self) -> dict[str, int]:
        """path -> the first line not seen yet, for files read in part."""
        return {path: next(n for n in itertools.count(1) if n not in seen)
                for path, seen in self.lines.items()}


def _text(lines: dict[int, str]) -> str:
    return "".join(lines[n] + "\n" for n in sorted(lines))
