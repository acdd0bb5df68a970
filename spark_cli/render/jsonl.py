"""`spark edit --json`: one JSON object per event, one event per line (the schema lives here).

Every line is an object with a ``type`` in snake_case, named after the event
(``ProseDelta`` → ``prose_delta``). Edit outcomes use the same shape as
``spark apply --json`` (``edit_applied`` / ``edit_refused``, see
``spark_cli.edits.model.outcome.outcome_to_json``). Other events are their dataclass
fields. The CLI adds ``request_sent`` (the moment the request left, as
``time.perf_counter()``), ``diff`` (the end diff per file), ``test_result``
and a final ``summary``. docs/cli.md documents every type.

Hot path: a ``prose_delta`` line is one ``json.dumps`` of the text and one
buffered write; flushes are coalesced (``spark_cli.render.coalesce``: at most
every ~16 ms while prose streams, at once for every other event).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping
from typing import Any, TextIO

from spark_cli.edits.model.outcome import EditApplied, EditRefused, outcome_to_json
from spark_cli.render.coalesce import CoalescingWriter
from spark_cli.render.events import outcome_of

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")
_TYPE_NAMES: dict[type, str] = {}


def type_name(cls: type) -> str:
    """``EditLanded`` → ``edit_landed`` (cached per class)."""
    name = _TYPE_NAMES.get(cls)
    if name is None:
        name = _TYPE_NAMES[cls] = _CAMEL.sub("_", cls.__name__).lower()
    return name


def _plain(value: Any) -> Any:
    if isinstance(value, EditApplied | EditRefused):
        return outcome_to_json(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def event_to_json(event: Any) -> dict[str, Any]:
    """The JSON object for one session event."""
    outcome = outcome_of(event)
    if outcome is not None:
        return outcome_to_json(outcome)
    data: dict[str, Any] = {"type": type_name(type(event))}
    if dataclasses.is_dataclass(event):
        for f in dataclasses.fields(event):
            data[f.name] = _plain(getattr(event, f.name))
    return data


class JsonLinesRenderer:
    """Writes each event as one JSON line to ``out``; consumers read live (prose within
    ~16 ms, every other event at once)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self._writer = CoalescingWriter(out)
        self._write = self._writer.write

    def prose(self, text: str) -> None:
        self._write('{"type": "prose_delta", "text": ' + json.dumps(text) + "}\n")

    def emit(self, data: dict[str, Any]) -> None:
        self._write(json.dumps(data) + "\n")
        self._writer.flush()

    def event(self, event: Any) -> None:
        self.emit(event_to_json(event))

    def request_sent(self, at: float) -> None:
        self.emit({"type": "request_sent", "at": at})

    def diff(self, path: str, diff: str) -> None:
        self.emit({"type": "diff", "path": path, "diff": diff})

    def note(self, text: str) -> None:
        self.emit({"type": "note", "message": text})

    def line(self, text: str, style: str = "") -> None:
        self.note(text)

    def summary(self, data: Mapping[str, Any]) -> None:
        self.emit({"type": "summary", **data})
