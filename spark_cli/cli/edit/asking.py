"""`spark edit --commands ask`: the user's yes on the terminal, since a one-shot has no screen.

The question goes to the controlling terminal (``/dev/tty``), never to stdout (the answer
and its edits) or stdin (a pipe's input): y runs the command once, a always in this repo,
anything else declines. Without a terminal nobody can answer: every command is declined,
and stderr says why once.
"""

from __future__ import annotations

import asyncio
import sys

from spark_cli.session.approval import ApprovalRequest, Approver, Decision

TTY = "/dev/tty"
_ANSWERS: dict[str, Decision] = {"y": "once", "yes": "once", "a": "always", "always": "always"}


def terminal_approver() -> Approver:
    """Asks on the terminal when there is one; else declines, saying so once."""
    try:
        with open(TTY, "r+", encoding="utf-8"):
            pass
    except OSError:
        told: list[bool] = []

        async def cannot_ask(request: ApprovalRequest, /) -> Decision:
            if not told:
                told.append(True)
                sys.stderr.write(f"spark edit: the model asked to run `{request.action}`; "
                                 "--commands ask needs a terminal to ask on, so it was "
                                 "declined (use --commands sandbox or allowed_commands)\n")
            return "refuse"

        return cannot_ask

    async def ask(request: ApprovalRequest, /) -> Decision:
        return await asyncio.get_running_loop().run_in_executor(None, _ask, request)

    return ask


def _ask(request: ApprovalRequest) -> Decision:
    with open(TTY, "r+", encoding="utf-8") as tty:
        tty.write(f"\nspark edit: the model wants to run\n  $ {request.action}\n"
                  f"  in {request.cwd} ({request.where})\n"
                  "Run it? [y] once  [a] always in this repo  [N] no: ")
        tty.flush()
        answer = tty.readline().strip().lower()
    return _ANSWERS.get(answer, "refuse")
