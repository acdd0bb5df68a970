"""The model's ``run_command`` as a turn runs it, once the orchestrator cleared it: the
``CommandStarted`` / ``CommandOutput`` / ``CommandFinished`` events, the model's text, and
the files the command changed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from spark_cli.checks.command_run import CommandRun, format_run
from spark_cli.checks.runner import COMMAND_HEAD_BYTES, COMMAND_TAIL_BYTES
from spark_cli.checks.sandbox import Sandbox
from spark_cli.protocol.channel import ToolCall
from spark_cli.session.actions.orchestrator import DECLINED, Action, Orchestrator
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

    def __init__(self, orchestrator: Orchestrator) -> None:
        self.orchestrator = orchestrator
        self.root = orchestrator.root
        self.stop = orchestrator.stop
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
        shown = self.orchestrator.shown(command)  # keys masked, escape sequences escaped
        timeout = min(float(args.get("timeout_s", COMMAND_DEFAULT_TIMEOUT_S)),
                      COMMAND_MAX_TIMEOUT_S)
        cleared = await self.orchestrator.clear(Action("command", command, call.call_id))
        if cleared is None or cleared.verdict != "run":
            refused = cleared is not None and cleared.verdict == "refuse"
            yield self._refused(call, shown, cleared.reason if cleared else DECLINED["command"],
                                "refused" if refused else "declined")
            return
        async for event in self._execute(call, command, shown, timeout, cleared.sandbox):
            yield event

    async def _execute(self, call: ToolCall, command: str, shown: str, timeout: float,
                       sandbox: Sandbox | None) -> AsyncIterator[CommandStarted | CommandOutput |
                                                                 CommandFinished]:
        loop = asyncio.get_running_loop()
        before = await loop.run_in_executor(None, stamp, self.root)
        pending: list[str] = []
        arrived = asyncio.Event()

        def on_output(text: str) -> None:
            pending.append(text)
            arrived.set()

        yield CommandStarted(call.call_id, shown, str(self.root), sandbox is not None)
        running = asyncio.ensure_future(self.orchestrator.run_line(
            command, sandbox, timeout=timeout, on_output=on_output,
            head_bytes=COMMAND_HEAD_BYTES, tail_bytes=COMMAND_TAIL_BYTES))
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
