"""`spark edit --commands ask`: the user's yes on ``/dev/tty`` (opened unbuffered in binary),
never stdout or stdin: y once, a always, else no. Without a terminal every action is
declined and stderr says why once."""

from __future__ import annotations

import asyncio
import sys

from spark_cli.session.actions.approval import ApprovalRequest, Approver, Decision

TTY = "/dev/tty"
_ANSWERS: dict[str, Decision] = {"y": "once", "yes": "once", "a": "always", "always": "always"}


def terminal_approver() -> Approver:
    """Asks on the terminal when there is one; else declines, saying so once."""
    try:
        open(TTY, "r+b", buffering=0).close()
    except OSError as failed:
        why = failed.strerror or str(failed)
        told: list[bool] = []

        async def cannot_ask(request: ApprovalRequest, /) -> Decision:
            if not told:
                told.append(True)
                sys.stderr.write(f"spark edit: the model asked to run `{request.action}` "
                                 f"({request.where}); --commands ask needs a terminal to ask "
                                 f"on ({TTY}: {why}), so it was declined "
                                 "(use --commands sandbox or allowed_commands)\n")
            return "refuse"

        return cannot_ask

    async def ask(request: ApprovalRequest, /) -> Decision:
        return await asyncio.get_running_loop().run_in_executor(None, _ask, request)

    return ask


def _ask(request: ApprovalRequest) -> Decision:
    shown = f"$ {request.action}" if request.kind == "command" else request.action
    always = "  [a] always in this repo" if request.can_always else ""
    with open(TTY, "r+b", buffering=0) as tty:
        verb = "run" if request.kind == "command" else "call"
        tty.write(f"\nspark edit: the model wants to {verb}\n  {shown}\n"
                  f"  in {request.cwd} ({request.where})\n"
                  f"Run it? [y] once{always}  [N] no: ".encode())
        answer = tty.readline().decode("utf-8", "replace").strip().lower()
    decision = _ANSWERS.get(answer, "refuse")
    return "refuse" if decision == "always" and not request.can_always else decision
