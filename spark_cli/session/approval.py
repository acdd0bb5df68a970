"""Asking the user before the model acts: the request, the answers, and what "always" saved.

A ``run_command`` call (or an MCP tool call) that the policy does not let run by
itself becomes an :class:`ApprovalRequest`. The front end that drives the
session answers it through its :class:`Approver`: the TUI with the keys y / a /
n / Esc, ``spark edit --commands ask`` on the terminal, an editor over ACP with
``session/request_permission``. A front end that cannot ask uses
:func:`refuse_all`. The answers are on :class:`Approver`.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from spark_cli.edits.disk.atomic import write_atomic
from spark_cli.record import record

if TYPE_CHECKING:
    import asyncio

Decision = Literal["once", "always", "refuse", "stop"]
ActionKind = Literal["command", "mcp"]
APPROVED_FILE = Path(".spark") / "approved.json"
T = TypeVar("T")


@record
class ApprovalRequest:
    """One action waiting for the user's yes: a command line, or an MCP tool and its
    arguments (``action``), run in ``cwd``, inside the sandbox or not (``note`` says why
    not, e.g. "not sandboxed: install bubblewrap")."""

    call_id: str
    kind: ActionKind
    action: str
    cwd: str
    sandboxed: bool
    note: str = ""
    can_always: bool = True
    """False for a compound command line (``;``, ``&&``, ``|``...): it always asks."""

    @property
    def where(self) -> str:
        """What every front end shows beside the action: sandboxed, or why not."""
        return "sandboxed" if self.sandboxed else (self.note or "not sandboxed")


class Approver(Protocol):
    """A front end's answer to one request (it may wait for the user as long as needed).

    - ``once``: run it this time;
    - ``always``: run it, and this exact action again in this repo without asking
      (kept in ``.spark/approved.json``, :func:`remember` / :func:`remembered`);
    - ``refuse``: do not run it; the model is told that the user declined;
    - ``stop``: do not run it and stop the turn (Esc)."""

    async def __call__(self, request: ApprovalRequest, /) -> Decision: ...


async def refuse_all(request: ApprovalRequest, /) -> Decision:
    """The approver of a front end that cannot ask: every action is refused."""
    return "refuse"


def _approved(root: Path) -> dict[str, Any]:
    """``approved.json`` as a table ({} when it is missing or unreadable)."""
    try:
        data = json.loads((root / APPROVED_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def remembered(root: Path, kind: ActionKind) -> frozenset[str]:
    """The actions of ``kind`` the user always allows in the repo at ``root``."""
    entries = _approved(root).get(kind)
    return frozenset(e for e in entries if isinstance(e, str)) if isinstance(entries, list) \
        else frozenset()


def remember(root: Path, kind: ActionKind, action: str) -> None:
    """Always allow ``action`` in the repo at ``root`` from now on (written atomically)."""
    data = _approved(root)
    entries = [e for e in data.get(kind, []) if isinstance(e, str)]
    if action not in entries:
        entries.append(action)
    data[kind] = entries
    write_atomic(root / APPROVED_FILE, (json.dumps(data, indent=1) + "\n").encode())


async def until_stopped(work: Awaitable[T], stop: asyncio.Event) -> T | None:
    """``work``'s result; None when ``stop`` was set first (Esc: the work is cancelled) or
    the work failed."""
    import asyncio  # deferred: launch -> request (asyncio loads with the turn)

    doing = asyncio.ensure_future(work)
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait((doing, stopping), return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
        if not doing.done():
            doing.cancel()
    if doing.cancelled() or not doing.done() or doing.exception() is not None:
        return None
    return doing.result()
