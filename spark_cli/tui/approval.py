"""The user's yes in the TUI: a command (or an MCP tool) waits on a bar above the prompt.

While the model's action waits, the bar holds the focus and takes y (once), a (always
this exact action in this repo; not offered for a compound command line) and n (refuse);
Esc is the app's: it stops the turn, which withdraws the question. The prompt keeps its
draft untouched and gets the focus back when the question is answered or withdrawn. The
transcript keeps what was asked and what the user said.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from rich.text import Text
from textual import events
from textual.widgets import Static

from spark_cli.session.approval import ApprovalRequest, Decision
from spark_cli.tui.output import Output

_KEYS: dict[str, Decision] = {"y": "once", "a": "always", "n": "refuse"}
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

    def on_key(self, event: events.Key) -> None:
        decision = _KEYS.get(event.key)
        answer = self.answer
        if answer is None or decision is None or (decision == "always" and not self.always):
            return  # Esc and the app's keys go on to the bindings
        event.stop()
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
        answer: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        self.out.write(question(request))
        keys = "y once · a always in this repo · n no · Esc stop" if request.can_always \
            else "y once · n no · Esc stop (a compound line always asks)"
        bar.always, bar.answer = request.can_always, answer
        bar.update(Text(f"run `{_one_line(request.action)}`?  {keys}", style="bold"))
        bar.display = True
        bar.focus()
        self.waiting(True)
        try:
            decision = await answer
        finally:
            bar.answer = None
            bar.display = False
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
    where = "sandboxed" if request.sandboxed else (request.note or "not sandboxed")
    text.append(f"  in {request.cwd} · {where}", style="dim" if request.sandboxed else "yellow")
    return text


def _one_line(action: str, room: int = 60) -> str:
    line = " ".join(action.split())
    return line if len(line) <= room else line[:room - 1] + "…"
