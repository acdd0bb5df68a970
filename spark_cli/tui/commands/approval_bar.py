"""The user's yes in the TUI: a command (or an MCP tool) waits on a bar above the prompt, which
takes y (once), a (always, where offered) and n; Esc stops the turn. Keys in the first
``GRACE_S`` are not answers (a word typed on must not allow anything); the draft stays."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from rich.text import Text
from textual import events
from textual.widgets import Static

from spark_cli.session.actions.approval import ApprovalRequest, Decision
from spark_cli.tui.output import Output

_KEYS: dict[str, Decision] = {"y": "once", "a": "always", "n": "refuse"}
GRACE_S = 0.5
"""Keys this soon after the question shows were meant for the prompt: they answer nothing."""
_SAID = {"once": "allowed once", "always": "always allowed in this repo",
         "refuse": "declined: nothing ran", "stop": "stopped"}


class ApprovalBar(Static, can_focus=True):
    """The question and its keys, shown only while an action waits."""

    DEFAULT_CSS = """
    ApprovalBar { display: none; height: auto; padding: 0 1; background: $warning 20%; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.answer: asyncio.Future[Decision] | None = None
        self.always = True
        self.keys = Text()
        self.shown_at = 0.0
        self.grace_s = GRACE_S

    async def ask(self, question: Text, keys: Text, always: bool) -> Decision:
        """Show the question until a key answers it (or the wait is cancelled)."""
        answer: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        self.answer = answer
        self.always, self.keys = always, keys
        self.update(question + keys)
        self.display = True
        self.shown_at = time.monotonic()
        self.focus()
        try:
            return await answer
        finally:
            self.answer = None
            self.display = False

    def on_key(self, event: events.Key) -> None:
        answer = self.answer
        if answer is None or not event.is_printable:
            return  # Esc and the app's keys go on to the bindings
        event.stop()
        decision = _KEYS.get(event.key)
        early = time.monotonic() - self.shown_at < self.grace_s
        if early or decision is None or (decision == "always" and not self.always):
            self.update(Text("answer first: ", style="bold yellow") + self.keys)
            return
        if not answer.done():
            answer.set_result(decision)


class TuiApprover:
    """The session's approver in the TUI (``SessionApi.set_approver``)."""

    def __init__(self, bar: ApprovalBar, out: Output, refocus: Callable[[], object],
                 waiting: Callable[[bool], None]) -> None:
        self.bar = bar
        self.out = out
        self.refocus = refocus
        self.waiting = waiting
        """Told True while a question waits (the HUD says so), then False."""

    async def __call__(self, request: ApprovalRequest, /) -> Decision:
        bar = self.bar
        self.out.write(question(request))
        keys = "y once · a always in this repo · n no · Esc stop" if request.can_always \
            else "y once · n no · Esc stop (no \"always\" for this line)"
        verb = "run" if request.kind == "command" else "call"
        self.waiting(True)
        try:
            decision = await bar.ask(Text(f"{verb} `{_one_line(request.action)}`?  ", style="bold"),
                                     Text(keys, style="bold"), request.can_always)
        finally:
            self.waiting(False)
            self.refocus()
        self.out.note(f"  → {_SAID[decision]}", "green" if decision != "refuse" else "yellow")
        return decision


def question(request: ApprovalRequest) -> Text:
    """What the transcript keeps of a question: the action, where, and how confined."""
    what = "run" if request.kind == "command" else "call"
    text = Text(f"? the model wants to {what}\n", style="bold yellow")
    text.append(f"  $ {request.action}\n" if request.kind == "command"
                else f"  {request.action}\n", style="bold")
    text.append(f"  in {request.cwd} · {request.where}",
                style="dim" if request.sandboxed else "yellow")
    return text


def _one_line(action: str, room: int = 60) -> str:
    line = " ".join(action.split())
    return line if len(line) <= room else line[:room - 1] + "…"
