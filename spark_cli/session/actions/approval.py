"""Asking the user before the model acts: the :class:`ApprovalRequest` the orchestrator puts,
the front end's :class:`Approver` (the TUI's keys, ``/dev/tty``, ACP's
``session/request_permission``; :func:`refuse_all` where none can ask), and the
"always" answers (:class:`Approvals`)."""

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
    """An action waiting in ``cwd`` (control characters escaped); ``note``: how confined."""

    call_id: str
    kind: ActionKind
    action: str
    cwd: str
    sandboxed: bool
    note: str = ""
    can_always: bool = True
    """False for a line "always" could not allow (compound, hidden characters, no sandbox)."""

    @property
    def where(self) -> str:
        """What every front end shows beside the action."""
        return self.note or ("sandboxed" if self.sandboxed else "not sandboxed")


class Approver(Protocol):
    """A front end's answer: ``once``, ``always`` (see :class:`Approvals`), ``refuse``, ``stop``."""

    async def __call__(self, request: ApprovalRequest, /) -> Decision: ...


async def refuse_all(request: ApprovalRequest, /) -> Decision:
    """The approver of a front end that cannot ask: every action is refused."""
    return "refuse"


class Approvals:
    """One repo's "always" answers in its state folder (docs/security.md); unusable: moved aside."""

    def __init__(self, root: Path, folder: Path | None = None) -> None:
        self.root, self.folder, self.problem = root, folder, ""

    @cached_property
    def path(self) -> Path:
        # deferred: launch -> request (platformdirs, the store's module)
        from spark_cli.session.config.state_dir import repo_slug, state_base

        return (self.folder or state_base() / "repos" / repo_slug(self.root)) / APPROVED_FILE

    def _read(self) -> dict[str, list[str]] | None:
        try:
            data = json.loads(self.path.read_bytes())
            if not isinstance(data, dict) or (data.get("kind"), data.get("version")) != (
                    "approved", 1):
                raise ValueError("not a version-1 spark approvals file")
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, RecursionError) as exc:
            try:
                os.replace(self.path, aside := self.path.with_name(APPROVED_FILE + ".corrupt"))
                kept = f"kept as {aside.name}"
            except OSError as why:
                kept = f"left in place ({why.strerror or why})"
            self.problem = (f"{self.path}: unusable ({exc}); no command or tool is always "
                            f"allowed until you answer \"always\" again; the file was {kept}")
            return None if kept.startswith("left") else {}
        return {kind: [e for e in entries if isinstance(e, str)] for kind, entries in data.items()
                if kind in ("command", "mcp") and isinstance(entries, list)}

    def allowed(self, kind: ActionKind) -> frozenset[str]:
        return frozenset((self._read() or {}).get(kind, ()))

    def add(self, kind: ActionKind, action: str) -> None:
        """Always allow ``action`` from now on (written atomically)."""
        if (data := self._read()) is None:
            return
        if action not in (entries := data.setdefault(kind, [])):
            entries.append(action)
        body = json.dumps({"version": 1, "kind": "approved", **data}, indent=1) + "\n"
        try:
            write_atomic(self.path, body.encode())
        except OSError as exc:
            self.problem = f"{self.path}: cannot be written ({exc.strerror or exc})"


async def until_stopped(work: Awaitable[T], stop: asyncio.Event) -> T | None:
    """``work``'s result; None when ``stop`` was set first or the work failed."""
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
