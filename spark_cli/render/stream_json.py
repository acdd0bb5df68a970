"""`spark edit --output-format stream-json`: Claude Code's stream schema (docs/cli.md maps it):
``system``/``init``, ``assistant`` messages (text, ``tool_use``), ``user`` tool results, other
events as ``system`` lines of their ``--json`` type, a final ``result`` (spark's figures in
its ``spark`` field)."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping
from typing import Any, TextIO

from spark_cli.render.jsonl import JsonLinesRenderer, event_to_json
from spark_cli.session import events as ev

_ERRORS = {"max_turns": "error_max_turns"}


def tool_input(arguments: str) -> dict[str, Any]:
    """A call's arguments as the ``tool_use`` block's ``input`` object."""
    try:
        value = json.loads(arguments)
    except ValueError:
        return {"arguments": arguments}
    return value if isinstance(value, dict) else {"arguments": value}


def claude_usage(usage: Mapping[str, Any] | None) -> dict[str, int]:
    """spark's usage in Claude's convention: ``input_tokens`` without the cached input."""
    usage = usage or {}
    cached = int(usage.get("cached_input_tokens") or 0)
    return {"input_tokens": int(usage.get("input_tokens") or 0) - cached,
            "cache_creation_input_tokens": 0, "cache_read_input_tokens": cached,
            "output_tokens": int(usage.get("output_tokens") or 0)}


class StreamJsonRenderer(JsonLinesRenderer):
    """Writes the run as Claude Code's stream-json lines (prose is gathered per message)."""

    def __init__(self, out: TextIO) -> None:
        super().__init__(out)
        self.started = time.monotonic()
        self.session_id = str(uuid.uuid4())
        self.model = ""
        self._text: list[str] = []
        self._last_text = ""
        self._message = 0
        self._open: dict[str, str] = {}  # call id -> tool name: tool_use sent, no result yet
        self._diffs: dict[str, str] = {}

    def begin(self, info: Mapping[str, Any]) -> None:
        self.model = str(info.get("model", ""))
        self._line("system", subtype="init", cwd=info.get("cwd"), model=self.model,
                   tools=list(info.get("tools", ())), mcp_servers=[],
                   permissionMode=info.get("permission_mode", "default"),
                   apiKeySource="none", spark={"provider": info.get("provider")})

    def prose(self, text: str) -> None:
        self._text.append(text)

    def request_sent(self, at: float) -> None:
        self._flush_text()
        self._message += 1

    def event(self, event: ev.SessionEvent) -> None:
        match event:
            case ev.ToolCallStarted(call_id=call_id, name=name, arguments=arguments):
                self._tool_use(call_id, name, tool_input(arguments))
            case ev.CommandStarted(call_id=call_id, command=command):
                self._tool_use(call_id, "run_command", {"command": command})
            case ev.ToolCallFinished(call_id=call_id, name=name, arguments=arguments):
                self._tool_result(call_id, name, tool_input(arguments), event.output,
                                  not event.ok)
            case ev.CommandFinished(call_id=call_id, command=command):
                self._tool_result(call_id, "run_command", {"command": command}, event.output,
                                  event.ended != "exit" or event.exit_code != 0)
            case ev.UsageReported():
                return  # summed in the result's usage
            case _:
                self.system(event_to_json(event))

    def system(self, data: dict[str, Any]) -> None:
        """A spark event (``type``: the ``subtype``) as a ``system`` line."""
        self._flush_text()
        self._line("system", subtype=data.pop("type"), **data)

    def diff(self, path: str, diff: str) -> None:
        self._diffs[path] = diff

    def note(self, text: str) -> None:
        self._flush_text()
        self._line("system", subtype="note", message=text)

    def summary(self, data: Mapping[str, Any]) -> None:
        self._flush_text()
        reason, status = data.get("reason"), data.get("status") or "completed"
        subtype = "success"
        errors: list[str] = []
        if status in ("failed", "cancelled") or data.get("timed_out"):
            subtype = "error_during_execution"
            errors.append("timeout" if data.get("timed_out") else str(reason or status))
        elif reason in _ERRORS:
            subtype = _ERRORS[reason]
            errors.append(str(reason))
        usage = data.get("usage")
        duration = time.monotonic() - self.started
        api = max(0.0, float(data.get("duration_s") or 0.0) - float(data.get("tool_time_s") or 0))
        spark = {key: data.get(key) for key in (
            "exit_code", "status", "reason", "applied", "refused", "dry_run", "ttft_s",
            "tokens_per_s", "tool_calls", "tool_time_s", "time_info", "no_edit", "marks")}
        spark.update(diffs=self._diffs, usage=usage)
        self._line("result", subtype=subtype, is_error=subtype != "success",
                   duration_ms=round(duration * 1000), duration_api_ms=round(api * 1000),
                   num_turns=(usage or {}).get("requests", 0), result=self._last_text,
                   stop_reason="timeout" if data.get("timed_out") else reason,
                   total_cost_usd=(usage or {}).get("cost_usd"), usage=claude_usage(usage),
                   errors=errors, permission_denials=[], spark=spark)

    def _line(self, kind: str, **fields: Any) -> None:
        self.emit({"type": kind, **fields, "session_id": self.session_id,
                   "uuid": str(uuid.uuid4())})

    def _assistant(self, block: dict[str, Any]) -> None:
        self._line("assistant", parent_tool_use_id=None, message={
            "id": f"msg_{self.session_id[:8]}_{self._message}", "type": "message",
            "role": "assistant", "model": self.model, "content": [block],
            "stop_reason": None, "stop_sequence": None})

    def _flush_text(self) -> None:
        if not self._text:
            return
        text = "".join(self._text)
        self._text.clear()
        if text.strip():
            self._last_text = text
            self._assistant({"type": "text", "text": text})

    def _tool_use(self, call_id: str, name: str, arguments: dict[str, Any]) -> None:
        self._flush_text()
        self._open[call_id] = name
        self._assistant({"type": "tool_use", "id": call_id, "name": name, "input": arguments})

    def _tool_result(self, call_id: str, name: str, arguments: dict[str, Any], output: str,
                     failed: bool) -> None:
        if self._open.pop(call_id, None) is None:  # never started (declined, refused)
            self._tool_use(call_id, name, arguments)
            self._open.pop(call_id, None)
        self._line("user", parent_tool_use_id=None, message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call_id, "content": output,
             "is_error": failed}]})
