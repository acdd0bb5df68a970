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
import os
from collections.abc import Awaitable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, TypeVar

from spark_cli.edits.disk.atomic import write_atomic
from spark_cli.record import record

if TYPE_CHECKING:
    import asyncio

Decision = Literal["once", "always", "refuse", "stop"]
ActionKind = Literal["command", "mcp"]
APPROVED_FILE = "approved.json"
T = TypeVar("T")


@record
class ApprovalRequest:
    """One action waiting for the user's yes: a command line, or an MCP tool and its
    arguments (``action``, its control characters escaped), run in ``cwd``, inside the
    sandbox or not (``note``: how confined, e.g. "not sandboxed: install bubblewrap", and
    a warning about the approvals file when there is one)."""

    call_id: str
    kind: ActionKind
    action: str
    cwd: str
    sandboxed: bool
    note: str = ""
    can_always: bool = True
    """False for a line "always" could not allow: compound (``;``, ``&&``, ``|``...),
    holding a hidden character, or with no sandbox to run it in."""

    @property
    def where(self) -> str:
        """What every front end shows beside the action: sandboxed, or why not (and a
        warning about the approvals file, when there is one)."""
        return self.note or ("sandboxed" if self.sandboxed else "not sandboxed")


class Approver(Protocol):
    """A front end's answer to one request (it may wait for the user as long as needed).

    - ``once``: run it this time;
    - ``always``: run it, and this exact action again in this repo without asking
      (kept in the user's state dir: :class:`Approvals`);
    - ``refuse``: do not run it; the model is told that the user declined;
    - ``stop``: do not run it and stop the turn (Esc)."""

    async def __call__(self, request: ApprovalRequest, /) -> Decision: ...


async def refuse_all(request: ApprovalRequest, /) -> Decision:
    """The approver of a front end that cannot ask: every action is refused."""
    return "refuse"


class Approvals:
    """The user's "always" answers for one repo: ``approved.json`` in the repo's state folder
    (``spark_cli.session.workspace.store``'s base and slug), ``{"version": 1, "kind":
    "approved", "command": [lines], "mcp": [tool names]}``. It lives outside every repo, so a
    repo can neither ship nor plant one (a ``.spark/approved.json`` in it is ignored). A file
    that is not that is moved aside as ``approved.json.corrupt`` and counts as empty;
    ``problem`` says so in one line (the next question shows it)."""

    def __init__(self, root: Path, folder: Path | None = None) -> None:
        self.root, self.folder = root, folder
        self.problem = ""

    @cached_property
    def path(self) -> Path:
        """``approved.json`` in the repo's state folder (looked up at the first action)."""
        # deferred: launch -> request (platformdirs, the store's module)
        from spark_cli.session.workspace.store import repo_slug, state_base

        return (self.folder or state_base() / "repos" / repo_slug(self.root)) / APPROVED_FILE

    def _read(self) -> dict[str, list[str]] | None:
        """The answers; None when the file is unusable and could not be moved aside."""
        try:
            data = json.loads(self.path.read_bytes())
            if not (isinstance(data, dict) and data.get("kind") == "approved"
                    and data.get("version") == 1):
                raise ValueError("not a version-1 spark approvals file")
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, RecursionError) as exc:
            aside = self.path.with_name(APPROVED_FILE + ".corrupt")
            try:
                os.replace(self.path, aside)
                kept = f"kept as {aside.name}"
            except OSError as why:
                kept = f"left in place ({why.strerror or why})"
            self.problem = (f"{self.path}: unusable ({exc}); no command or tool is always "
                            f"allowed until you answer \"always\" again; the file was {kept}")
            return {} if kept.startswith("kept") else None
        return {kind: [e for e in entries if isinstance(e, str)]
                for kind, entries in data.items()
                if kind in ("command", "mcp") and isinstance(entries, list)}

    def allowed(self, kind: ActionKind) -> frozenset[str]:
        """The actions of ``kind`` the user always allows in this repo."""
        return frozenset((self._read() or {}).get(kind, ()))

    def add(self, kind: ActionKind, action: str) -> None:
        """Always allow ``action`` from now on (written atomically; an unusable file that
        could not be moved aside is never overwritten)."""
        data = self._read()
        if data is None:
            return
        entries = data.setdefault(kind, [])
        if action not in entries:
            entries.append(action)
        body = {"version": 1, "kind": "approved", **data}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.path, (json.dumps(body, indent=1) + "\n").encode())
        except OSError as exc:
            self.problem = f"{self.path}: cannot be written ({exc.strerror or exc})"


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
