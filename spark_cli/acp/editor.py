"""What spark asks of the editor: the user's yes, open files' text, buffers following edits."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path

from acp import helpers
from acp.interfaces import Client
from acp.schema import PermissionOption, ToolCallUpdate

from spark_cli.acp.updates import before
from spark_cli.session.actions.approval import ApprovalRequest, Approver, Decision
from spark_cli.session.events import EditApplied

_CHOSEN: dict[str, Decision] = {"once": "once", "always": "always"}


def editor_approver(client: Client, session_id: str) -> Approver:
    """Asks the editor about each action (``session/request_permission``); cancelled is Esc."""

    async def ask(request: ApprovalRequest, /) -> Decision:
        title = f"$ {request.action}" if request.kind == "command" else request.action
        options = [PermissionOption(option_id="once", name="Allow once", kind="allow_once")]
        if request.can_always:
            options.append(PermissionOption(option_id="always", name="Always allow in this repo",
                                            kind="allow_always"))
        options.append(PermissionOption(option_id="reject", name="Reject", kind="reject_once"))
        call = ToolCallUpdate(
            tool_call_id=request.call_id, title=title, status="pending",
            kind="execute" if request.kind == "command" else "other",
            raw_input={"command": request.action, "cwd": request.cwd},
            content=[helpers.tool_content(
                helpers.text_block(f"in {request.cwd} ({request.where})"))])
        answer = await client.request_permission(session_id=session_id, tool_call=call,
                                                 options=options)
        outcome = answer.outcome
        if outcome.outcome == "cancelled":
            return "stop"
        return _CHOSEN.get(getattr(outcome, "option_id", ""), "refuse")

    return ask


READ_TIMEOUT_S = 10.0


def editor_buffers(client: Client, session_id: str,
                   loop: asyncio.AbstractEventLoop) -> Callable[[str], str | None]:
    """Reads a file's editor buffer from a worker thread (None: read the disk)."""

    def read(path: str) -> str | None:
        try:
            asyncio.get_running_loop()
            return None  # never wait for the loop on the loop's own thread
        except RuntimeError:
            pass
        asked = client.read_text_file(session_id=session_id, path=path)
        try:
            return asyncio.run_coroutine_threadsafe(asked, loop).result(READ_TIMEOUT_S).content
        except Exception:  # an error answer, a closed connection, no answer in time
            return None

    return read


async def follow_edits(client: Client, session_id: str, root: Path,
                       landed: Sequence[EditApplied]) -> list[str]:
    """Write each edit through the editor where its buffer held the old text; the paths written.

    A buffer with other text (the user's unsaved change) is never written."""
    written: list[str] = []
    for path in dict.fromkeys(o.path for o in landed):
        mine = [o for o in landed if o.path == path]
        if any(o.created or o.deleted or o.moved_from for o in mine):
            continue
        try:
            now = (root / path).read_text(encoding="utf-8")
        except (OSError, ValueError):
            continue
        was: str | None = now
        for outcome in reversed(mine):
            was = before(was, outcome.diff) if was is not None else None
        if was is None or was == now:
            continue
        try:
            held = await client.read_text_file(session_id=session_id, path=str(root / path))
            if held.content == was:
                await client.write_text_file(session_id=session_id, path=str(root / path),
                                             content=now)
                written.append(path)
        except Exception:  # the editor could not: the file on disk is right either way
            continue
    return written
