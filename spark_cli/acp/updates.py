"""A prompt's session events as ACP ``session/update`` payloads, and their sending.

`replay` shows a saved conversation again (``session/load``); :class:`Outbox` sends in order,
prose within ``FLUSH_S`` joined into one message (`spark bench acp`).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from acp import helpers
from acp.schema import (
    AgentMessageChunk,
    ContentToolCallContent,
    StopReason,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolCallStatus,
    ToolKind,
    UserMessageChunk,
)

from spark_cli.session import events as ev
from spark_cli.session.api import shown_from_history
from spark_cli.session.workspace.store import SavedConversation

KINDS: dict[str, ToolKind] = {"read_file": "read", "search": "search", "list_files": "search"}
_EDITS: dict[str, ToolCallStatus] = {"edit": "completed", "partial": "completed",
                                     "refused": "failed", "rejected": "failed"}
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
Update = AgentMessageChunk | UserMessageChunk | ToolCallStart | ToolCallProgress
"""The ``session/update`` payloads spark sends (a subset of the SDK's union)."""
FLUSH_S = 1 / 15
"""At most one prose message per this many seconds after the first."""


def stop_reason(done: ev.TurnCompleted, cancelled: bool) -> StopReason:
    """ACP's stop reason for a turn that ended (``cancelled``: the editor asked to stop)."""
    if cancelled or done.status == "cancelled":
        return "cancelled"
    if done.reason == "max_tool_calls":
        return "max_turn_requests"
    if done.reason in ("max_output_tokens", "length"):
        return "max_tokens"
    if done.reason in ("content_filter", "refusal"):
        return "refusal"
    return "end_turn"


def hunks(diff: str) -> list[tuple[int, str, str]]:
    """Each hunk of a unified diff as (first new line, old text, new text)."""
    found: list[tuple[int, list[str], list[str]]] = []
    for line in diff.splitlines(keepends=True):
        head = _HUNK.match(line)
        if head:
            found.append((int(head.group(1)), [], []))
        elif found and line[:1] in (" ", "-", "+"):
            _, old, new = found[-1]
            if line[0] != "+":
                old.append(line[1:])
            if line[0] != "-":
                new.append(line[1:])
    return [(start, "".join(old), "".join(new)) for start, old, new in found]


def before(text: str, diff: str) -> str | None:
    """``text`` as it was before ``diff``; None when the diff does not fit it."""
    lines = text.splitlines(keepends=True)
    for start, old, new in reversed(hunks(diff)):
        new_lines = new.splitlines(keepends=True)
        at = start - 1 if new_lines else start
        if lines[at:at + len(new_lines)] != new_lines:
            return None
        lines[at:at + len(new_lines)] = old.splitlines(keepends=True)
    return "".join(lines)


def _text(text: str) -> ContentToolCallContent:
    return helpers.tool_content(helpers.text_block(text))


class TurnUpdates:
    """Turns one prompt's events into updates; keeps a command's output so far."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.edits = 0
        self.landed: list[ev.EditApplied] = []
        """The edits that landed, in order (the editor's buffers follow them at the end)."""
        self.answer: list[str] = []
        self.shown: list[tuple[str, str, str]] = []
        """What the editor was shown (kind, text, detail), kept with the conversation."""
        self._output: dict[str, str] = {}
        self._started: set[str] = set()

    def of(self, event: ev.SessionEvent) -> Update | None:
        """The update for ``event``; None for events an editor does not show (prose: ``Outbox``)."""
        match event:
            case ev.ToolCallStarted(call_id=call_id, name=name, arguments=args, label=label):
                return helpers.start_tool_call(
                    call_id, label, kind=KINDS.get(name, "other"), status="in_progress",
                    locations=self._read_at(name, args), raw_input=_json(args))
            case ev.ToolCallFinished(call_id=call_id, ok=ok, line=line):
                self.shown.append(("tool", line, ""))
                return helpers.update_tool_call(call_id, status="completed" if ok else "failed",
                                                content=[_text(line)])
            case ev.CommandStarted(call_id=call_id, command=command, cwd=cwd):
                self._started.add(call_id)
                return helpers.start_tool_call(call_id, f"$ {command}", kind="execute",
                                               status="in_progress",
                                               raw_input={"command": command, "cwd": cwd})
            case ev.CommandOutput(call_id=call_id, text=text):
                self._output[call_id] = output = self._output.get(call_id, "") + text
                return helpers.update_tool_call(call_id, content=[_text(output)])
            case ev.CommandFinished():
                return self._finished(event)
            case ev.EditLanded(outcome=outcome):
                return self._edit(outcome)
            case ev.EditRefused(outcome=ev.RefusedEdit(message=message)) | \
                    ev.BlockRejected(message=message):
                self.edits += 1
                self.shown.append(("refused", message, ""))
                return helpers.start_tool_call(
                    f"edit-{self.edits}", f"Refused: {message.splitlines()[0][:120]}",
                    kind="edit", status="failed", content=[_text(message)])
            case ev.ToolLoopStopped(message=message):
                return helpers.update_agent_message_text(f"\n\n{message}\n")
            case ev.HookWarning(line=line):
                return helpers.update_agent_message_text(f"\n\nwarning: {line}\n")
            case ev.CompactionStarted():
                self.edits += 1
                return helpers.start_tool_call(f"compaction-{self.edits}", "Compacting the "
                                               "conversation", kind="think", status="in_progress")
            case ev.CompactionFinished(line=line, outcome=outcome):
                return helpers.update_tool_call(
                    f"compaction-{self.edits}", status="failed" if outcome in (
                        "failed", "cancelled") else "completed", content=[_text(line)])
        return None

    def _read_at(self, name: str, arguments: str) -> list[ToolCallLocation] | None:
        args = _json(arguments) if name == "read_file" else {}
        path, start = args.get("path"), args.get("start_line")
        if not isinstance(path, str):
            return None
        return [ToolCallLocation(path=str(self.root / path),
                                 line=start if isinstance(start, int) else None)]

    def _finished(self, done: ev.CommandFinished) -> Update:
        status: ToolCallStatus = "completed" if done.ended == "exit" and done.exit_code == 0 \
            else "failed"
        content = [_text(self._output.pop(done.call_id, "") or done.output), _text(done.line)]
        self.shown.append(("tool", done.line, ""))
        if done.call_id in self._started:
            return helpers.update_tool_call(done.call_id, status=status, content=content)
        return helpers.start_tool_call(done.call_id, f"$ {done.command}", kind="execute",
                                       status="failed", content=content,
                                       raw_input={"command": done.command})

    def _edit(self, outcome: ev.EditApplied) -> Update:
        self.edits += 1
        self.landed.append(outcome)
        path = str(self.root / outcome.path)
        found = hunks(outcome.diff)
        content = [helpers.tool_diff_content(path, new, None if outcome.created else old)
                   for _, old, new in found]
        self.shown.append(("edit", outcome.message, outcome.diff))
        return helpers.start_tool_call(
            f"edit-{self.edits}", outcome.message, kind="delete" if outcome.deleted else "edit",
            status="completed", content=content or [_text(outcome.message)],
            locations=[ToolCallLocation(path=path, line=found[0][0] if found else None)],
            raw_input={"path": outcome.path})


def _json(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


class Outbox:
    """Sends a prompt's updates in order; prose is flushed before any other update."""

    def __init__(self, send: Callable[[Update], Awaitable[None]]) -> None:
        self._send = send
        self._items: list[Update | list[str] | None] = []  # a list: prose not sent yet
        self._wake = asyncio.Event()
        self._last = float("-inf")  # loop time of the last prose sent
        self._task = asyncio.ensure_future(self._run())

    def prose(self, text: str) -> None:
        if self._items and isinstance(self._items[-1], list):
            self._items[-1].append(text)
        else:
            self._items.append([text])
        self._wake.set()

    def update(self, update: Update) -> None:
        self._items.append(update)
        self._wake.set()

    async def close(self) -> None:
        self._items.append(None)
        self._wake.set()
        await self._task

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._items:
                if isinstance(self._items[0], list) and len(self._items) == 1:
                    wait = self._last + FLUSH_S - loop.time()
                    if wait > 0:  # more prose may join it meanwhile
                        await asyncio.sleep(wait)
                item = self._items.pop(0)
                if item is None:
                    return
                if isinstance(item, list):
                    self._last = loop.time()
                    item = helpers.update_agent_message_text("".join(item))
                await self._send(item)


def replay(saved: SavedConversation, root: Path) -> list[Update]:
    """The updates that show ``saved`` again, in order (what was shown, else the messages)."""
    shown = saved.shown or shown_from_history(saved)
    updates: list[Update] = []
    for number, item in enumerate(shown, 1):
        if item.kind == "prompt":
            updates.append(helpers.update_user_message_text(item.text))
        elif item.kind in ("answer", "failed"):
            updates.append(helpers.update_agent_message_text(item.text))
        elif item.kind in ("tool", *_EDITS):
            updates.append(helpers.start_tool_call(
                f"replay-{number}", item.text.splitlines()[0] if item.text else item.kind,
                kind="other" if item.kind == "tool" else "edit",
                status=_EDITS.get(item.kind, "completed"),
                content=[_text(item.detail or item.text)]))
    return updates
