"""`spark edit --json`: one JSON object per event, one event per line, each with a ``type``
(:data:`EVENT_TYPES`, :data:`CLI_TYPES`; docs/cli.md documents every type and a test checks it).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any, TextIO

from spark_cli.edits.model.outcome import EditApplied, RefusedEdit, outcome_to_json
from spark_cli.render.coalesce import CoalescingWriter
from spark_cli.session import events as ev

EVENT_TYPES: dict[type, str] = {
    ev.RequestSent: "request_sent",
    ev.Queued: "queued",
    ev.WaitingToRetry: "waiting_to_retry",
    ev.Reconnected: "reconnected",
    ev.ProseDelta: "prose_delta",
    ev.EditLanded: "edit_applied",
    ev.EditRefused: "edit_refused",
    ev.BlockRejected: "block_rejected",
    ev.SteerAccepted: "steer_accepted",
    ev.SteerRejected: "steer_rejected",
    ev.Steered: "steered",
    ev.UsageReported: "usage_reported",
    ev.ToolCallStarted: "tool_call_started",
    ev.ToolCallFinished: "tool_call_finished",
    ev.ToolLoopStopped: "tool_loop_stopped",
    ev.HookWarning: "hook_warning",
    ev.CommandStarted: "command_started",
    ev.CommandOutput: "command_output",
    ev.CommandFinished: "command_finished",
    ev.CompactionStarted: "compaction_started",
    ev.CompactionFinished: "compaction_finished",
    ev.TurnCompleted: "turn_completed",
    ev.TurnFailed: "turn_failed",
}

CLI_TYPES = ("diff", "note", "test_result", "summary", "candidate_started", "candidate_finished",
             "candidate_chosen")


def _plain(value: Any) -> Any:
    if isinstance(value, EditApplied | RefusedEdit):
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


def event_to_json(event: ev.SessionEvent) -> dict[str, Any]:
    """The JSON object for one session event."""
    if isinstance(event, ev.EditLanded | ev.EditRefused):
        return outcome_to_json(event.outcome)
    return {"type": EVENT_TYPES[type(event)], **_plain(event)}


class JsonLinesRenderer:
    """Writes each event as one JSON line (prose flushed about once a frame, the rest at once)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self._writer = CoalescingWriter(out)
        self._write = self._writer.write

    def prose(self, text: str) -> None:
        self._write('{"type": "prose_delta", "text": ' + json.dumps(text) + "}\n")

    def emit(self, data: dict[str, Any]) -> None:
        self._write(json.dumps(data) + "\n")
        self._writer.flush()

    def event(self, event: ev.SessionEvent) -> None:
        self.emit(event_to_json(event))

    def begin(self, info: Mapping[str, Any]) -> None:
        """Nothing: ``--json`` starts with the first event."""

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
