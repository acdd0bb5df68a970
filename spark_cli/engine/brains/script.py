"""The ``script:PATH`` brain: plays back recorded answers from a TOML or JSONL file
(docs/brains.md); a bad file fails when the brain is made, never mid-answer."""

from __future__ import annotations

import json
import re
import threading
import tomllib
from collections.abc import Iterator
from pathlib import Path

from spark_cli.engine.brains.base import BrainRequest
from spark_cli.record import record

_KEYS = frozenset({"match", "answer"})


class ScriptError(ValueError):
    """The script file is missing or malformed (the message names the file and entry)."""


@record
class ScriptEntry:
    """One scripted answer and the prompt it answers (a substring or a pattern)."""

    answer: str
    match: str | None = None
    pattern: re.Pattern[str] | None = None

    def matches(self, prompt: str) -> bool:
        if self.match is None:
            return False
        if self.match in prompt:
            return True
        return self.pattern is not None and self.pattern.search(prompt) is not None


def _entry(raw: object, where: str) -> ScriptEntry:
    if not isinstance(raw, dict):
        raise ScriptError(f"{where}: expected a table/object with `answer`, "
                          f"got {type(raw).__name__}")
    unknown = set(raw) - _KEYS
    if unknown:
        raise ScriptError(f"{where}: unknown key(s) {', '.join(sorted(unknown))} "
                          "(allowed: match, answer)")
    answer, match = raw.get("answer"), raw.get("match")
    if not isinstance(answer, str):
        raise ScriptError(f"{where}: `answer` must be a string")
    if match is not None and (not isinstance(match, str) or not match):
        raise ScriptError(f"{where}: `match` must be a non-empty string")
    try:
        pattern = None if match is None else re.compile(match)
    except re.error:
        pattern = None  # not a regex: matched as a plain substring only
    return ScriptEntry(answer=answer, match=match, pattern=pattern)


def _raw_entries(path: Path, text: str) -> list[tuple[object, str]]:
    if path.suffix in (".jsonl", ".ndjson"):
        out: list[tuple[object, str]] = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                out.append((json.loads(line), f"{path}:{number}"))
            except json.JSONDecodeError as exc:
                raise ScriptError(f"{path}:{number}: not valid JSON ({exc.msg})") from None
        return out
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScriptError(f"{path}: not valid TOML ({exc})") from None
    unknown = set(data) - {"entries"}
    if unknown:
        raise ScriptError(f"{path}: unknown top-level key(s) {', '.join(sorted(unknown))} "
                          "(expected [[entries]] tables)")
    entries = data.get("entries", [])
    if not isinstance(entries, list):
        raise ScriptError(f"{path}: `entries` must be an array of tables ([[entries]])")
    return [(raw, f"{path}: entry {i}") for i, raw in enumerate(entries, 1)]


def load_script(path: str | Path) -> list[ScriptEntry]:
    """Read and check a script file; raises :class:`ScriptError` with the reason."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScriptError(f"script file not found: {file}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ScriptError(f"cannot read script file {file}: {exc}") from None
    entries = [_entry(raw, where) for raw, where in _raw_entries(file, text)]
    if not entries:
        raise ScriptError(f"{file}: no entries (add [[entries]] tables with an `answer`)")
    return entries


class ScriptBrain:
    """Plays back the entries of one script file (see the module docstring)."""

    name = "script"

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self.entries = load_script(path)
        self._ordered = [e for e in self.entries if e.match is None]
        self._next = 0
        self._lock = threading.Lock()

    def pick(self, prompt: str) -> str:
        """The answer text for ``prompt`` (advances the in-order cursor when used)."""
        for entry in self.entries:
            if entry.matches(prompt):
                return entry.answer
        with self._lock:
            if self._next < len(self._ordered):
                entry = self._ordered[self._next]
                self._next += 1
                return entry.answer
        played = len(self._ordered)
        entries = ("its 1 in-order entry has been played" if played == 1 else
                   f"its {played} in-order entries have all been played")
        return (f"The script {self.path} has no more answers: {entries} and no `match` "
                f"entry matches this prompt.\n")

    def answer(self, request: BrainRequest) -> Iterator[str]:
        return iter(self.pick(request.prompt).splitlines(keepends=True))
