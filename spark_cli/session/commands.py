"""The model's ``run_command`` as a turn runs it: the policy, the user's yes, the run, its events.

The policy (``settings.commands``): ``off`` declares no tool and answers a stray call
``OFF``; ``sandbox`` runs every command in the sandbox without asking, and refuses
when there is none; ``ask`` asks the front end's approver unless the command's leading
words are in ``allowed_commands`` or the user always allows this exact line in this repo
(a compound line always asks). Under ``ask`` a command runs in the sandbox when there is
one; the prompt says so, or says "not sandboxed". The run itself (process group, kill,
secrets, the repo compared before and after) is ``spark_cli.checks``'s; this module turns
it into ``CommandStarted`` / ``CommandOutput`` / ``CommandFinished`` and the model's text.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

from spark_cli.checks.command_run import (
    DECLINED,
    OFF,
    CommandRun,
    allowed_by,
    format_run,
    is_compound,
)
from spark_cli.checks.runner import run_command
from spark_cli.checks.sandbox import Sandbox, find_sandbox
from spark_cli.protocol.channel import ToolCall
from spark_cli.protocol.secrets import Masker, Secrets, scrubbed_env
from spark_cli.session.approval import (
    ApprovalRequest,
    Approver,
    remember,
    remembered,
    until_stopped,
)
from spark_cli.session.config.settings import Settings
from spark_cli.session.events import CommandEnd, CommandFinished, CommandOutput, CommandStarted
from spark_cli.session.tool_access import shorten
from spark_cli.tools.defs import (
    COMMAND_DEFAULT_TIMEOUT_S,
    COMMAND_MAX_TIMEOUT_S,
    RUN_COMMAND,
    RUN_COMMAND_PARAMS,
)
from spark_cli.tools.model import ToolFailure, parse_arguments
from spark_cli.tools.repo_files import changed, stamp

OUTPUT_BUDGET = 30_000
"""Characters of output the model gets at most (head and tail kept)."""


class CommandCalls:
    """Runs one turn's ``run_command`` calls for the session (one per turn)."""

    def __init__(self, root: Path, settings: Settings, approver: Approver,
                 stop_turn: Callable[[], Awaitable[None]]) -> None:
        self.root = root
        self.settings = settings
        self.approver = approver
        self.stop_turn = stop_turn
        self.secrets = Secrets(settings.provider.secrets)
        self.stop = asyncio.Event()
        """Set on interrupt: a waiting approval is withdrawn, a running command killed."""

    async def run(self, call: ToolCall) -> AsyncIterator[CommandStarted | CommandOutput |
                                                         CommandFinished]:
        """The call's events; the last one is always its ``CommandFinished``."""
        try:
            args = parse_arguments(RUN_COMMAND, call.arguments, RUN_COMMAND_PARAMS)
        except ToolFailure as failure:
            yield self._refused(call, "", failure.message, "refused")
            return
        command = str(args["command"]).strip()
        shown = self.secrets.mask(command)  # a key the model wrote never reaches a screen
        timeout = min(float(args.get("timeout_s", COMMAND_DEFAULT_TIMEOUT_S)),
                      COMMAND_MAX_TIMEOUT_S)
        policy = self.settings.commands
        if policy == "off" or not command:
            text = OFF if policy == "off" else f"{RUN_COMMAND}: the command is empty"
            yield self._refused(call, shown, text, "refused")
            return
        found = await asyncio.get_running_loop().run_in_executor(None, find_sandbox)
        sandbox = found if isinstance(found, Sandbox) else None
        fix = "" if isinstance(found, Sandbox) else found.fix
        if policy == "sandbox" and sandbox is None:
            yield self._refused(call, shown, f"not run: no sandbox ({fix})", "refused")
            return
        if policy == "ask" and not self._allowed(command):
            note = "" if sandbox is not None else f"not sandboxed: {fix}"
            request = ApprovalRequest(call.call_id, "command", shown, str(self.root),
                                      sandbox is not None, note, not is_compound(command))
            decision = await until_stopped(self.approver(request), self.stop)
            if decision in ("refuse", "stop", None):
                if decision == "stop":
                    await self.stop_turn()
                yield self._refused(call, shown, DECLINED, "declined")
                return
            if decision == "always":
                remember(self.root, "command", command)
        async for event in self._execute(call, command, shown, timeout, sandbox):
            yield event

    def _allowed(self, command: str) -> bool:
        if is_compound(command):
            return False
        return (allowed_by(command, self.settings.allowed_commands)
                or command in remembered(self.root, "command"))

    async def _execute(self, call: ToolCall, command: str, shown: str, timeout: float,
                       sandbox: Sandbox | None) -> AsyncIterator[CommandStarted | CommandOutput |
                                                                 CommandFinished]:
        secrets = self.settings.provider.secrets
        env = scrubbed_env(os.environ, secrets)
        masker = Masker([*secrets, *(v for k, v in os.environ.items() if k not in env)])
        loop = asyncio.get_running_loop()
        before = await loop.run_in_executor(None, stamp, self.root)
        pending: list[str] = []
        arrived = asyncio.Event()

        def on_output(text: str) -> None:
            pending.append(text)
            arrived.set()

        yield CommandStarted(call.call_id, shown, str(self.root), sandbox is not None)
        running = asyncio.ensure_future(run_command(
            command, self.root, timeout=timeout, env=env, sandbox=sandbox,
            on_output=on_output, stop=self.stop, masker=masker,
            keep_env=self.settings.command_env, deny_read=self.settings.sandbox_deny_read))
        while not running.done():
            waiting = asyncio.ensure_future(arrived.wait())
            await asyncio.wait((running, waiting), return_when=asyncio.FIRST_COMPLETED)
            waiting.cancel()
            arrived.clear()
            if pending:
                text, pending[:] = "".join(pending), []
                yield CommandOutput(call.call_id, text)
        result: CommandRun = running.result()
        if pending:
            yield CommandOutput(call.call_id, "".join(pending))
        after = await loop.run_in_executor(None, stamp, self.root)
        touched = changed(before, after) or ()
        text = format_run(result, OUTPUT_BUDGET)
        if touched:
            text += f"\n[the command changed {_files(len(touched))}: {_named(touched, 10)}]"
        status = (f"exit {result.exit_code}" if result.ended == "exit"
                  else "killed: timeout" if result.ended == "timeout" else "stopped")
        line = f"{shorten(shown, 60)} → {status} · {result.duration_s:.1f} s"
        if touched:
            line += (f" · changed {_files(len(touched))} ({_named(touched, 3)}); "
                     "/undo does not restore them")
        yield CommandFinished(call.call_id, shown, result.ended, result.exit_code,
                              result.duration_s, text, line, touched)

    def _refused(self, call: ToolCall, command: str, text: str,
                 ended: CommandEnd) -> CommandFinished:
        line = f"{shorten(command or RUN_COMMAND, 60)} → {text.split(':')[0]}"
        return CommandFinished(call.call_id, command, ended, None, 0.0, text, line)


def _files(count: int) -> str:
    return f"{count} file{'s' if count != 1 else ''}"


def _named(paths: tuple[str, ...], cap: int) -> str:
    return ", ".join(paths[:cap]) + (" …" if len(paths) > cap else "")
