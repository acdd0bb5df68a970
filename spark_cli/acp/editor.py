"""What spark asks of the editor: the user's yes, and the text of open files.

:func:`editor_approver` asks ``session/request_permission``: allow once, allow always (this
exact action in this repo: ``.spark/approved.json``, saved by the session) and reject; a
compound command line offers no "always". The editor's answer is the user's; a cancelled
question (the editor stopping the turn) is Esc: the turn stops.

:func:`editor_buffers` reads a file through ``fs/read_text_file`` (an open buffer, unsaved
text included) for the model's ``read_file``, which runs on a worker thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from acp import helpers
from acp.interfaces import Client
from acp.schema import PermissionOption, ToolCallUpdate

from spark_cli.session.approval import ApprovalRequest, Approver, Decision

_CHOSEN: dict[str, Decision] = {"once": "once", "always": "always"}


def editor_approver(client: Client, session_id: str) -> Approver:
    """Asks the editor behind ``client`` about each action of the session ``session_id``."""

    async def ask(request: ApprovalRequest, /) -> Decision:
        where = "sandboxed" if request.sandboxed else (request.note or "not sandboxed")
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
            content=[helpers.tool_content(helpers.text_block(f"in {request.cwd} ({where})"))])
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
    """A reader of the editor's text of a file (None: the editor could not; read the disk).
    Called from a worker thread: it waits for the editor's answer on ``loop``."""

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
