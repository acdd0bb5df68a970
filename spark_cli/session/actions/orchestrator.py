"""One policy for every action: the model's ``run_command`` and MCP calls, the user's ``/test``.

The one place to audit (docs/security.md), shaped as codex-rs ``tools/orchestrator.rs``:
``requirement`` says run, ask or refuse; ``clear`` asks; ``run_line`` runs.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import unicodedata
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Literal

from spark_cli.checks.command_run import CommandRun
from spark_cli.checks.runner import run_command
from spark_cli.checks.sandbox import NoSandbox, Sandbox, find_sandbox
from spark_cli.protocol.secrets import Masker, scrubbed_env
from spark_cli.record import record
from spark_cli.session.actions.approval import (
    ActionKind,
    ApprovalRequest,
    Approvals,
    Approver,
    refuse_all,
    until_stopped,
)
from spark_cli.session.config.settings import Settings

OFF = "running commands is off (--commands)"
DECLINED = {"command": "declined: the user did not allow this command",
            "mcp": "declined: the user did not allow this tool call (allowed_tools in its "
                   "[mcp_servers.NAME] table of the user's config lets it run without asking)"}
MCP_WHERE = "an MCP server's tool: not sandboxed"
_COMPOUND = (";", "&", "|", ">", "<", "`", "$(", "\n", "\r")
Verdict = Literal["run", "ask", "refuse", "declined"]


@record
class Action:
    """A command line, or an MCP call (``name``: what "always" keeps; ``listed``: allowed)."""

    kind: ActionKind | Literal["test"]
    line: str
    call_id: str = ""
    name: str = ""
    listed: bool = False


@record
class Requirement:
    """Run (in ``sandbox`` or not), ask, refuse or declined (``reason``); ``where``: confinement."""

    verdict: Verdict
    reason: str = ""
    sandbox: Sandbox | None = None
    where: str = ""
    can_always: bool = False


class Orchestrator:
    """The policy of one session's turn (or of one ``/test``): see the module doc."""

    def __init__(self, root: Path, settings: Settings, approver: Approver = refuse_all,
                 stop_turn: Callable[[], Awaitable[None]] | None = None) -> None:
        self.root, self.settings, self.approver, self.stop_turn = (root, settings, approver,
                                                                   stop_turn)
        self.secrets, self.approvals = settings.provider.secrets, Approvals(root)
        self.stop = asyncio.Event()
        """Set on interrupt: a waiting question is withdrawn, a running action stopped."""

    def shown(self, line: str) -> str:
        """``line`` as every screen shows it: keys masked, hidden characters escaped."""
        return escaped(self.secrets.mask(line))

    def requirement(self, action: Action, found: Sandbox | NoSandbox | None) -> Requirement:
        """Run, ask or refuse ``action``, and where (``found``: the sandbox probe's answer)."""
        sandbox = found if isinstance(found, Sandbox) else None
        where = f"not sandboxed: {found.fix}" if isinstance(found, NoSandbox) else \
            "sandboxed" if sandbox else ""
        if action.kind == "mcp":
            known = action.listed or action.name in self.approvals.allowed("mcp")
            return Requirement("run" if known else "ask", where=MCP_WHERE, can_always=True)
        policy, line = self.settings.commands, action.line
        if action.kind == "command" and (policy == "off" or not line):
            return Requirement("refuse", OFF if policy == "off" else
                               "run_command: the command is empty")
        if policy == "sandbox" and sandbox is None:
            return Requirement("refuse", f"not run: no sandbox ({where.partition(': ')[2]})")
        if action.kind == "test" or policy == "sandbox":  # /test: the user's own request
            return Requirement("run", "", sandbox, where)
        if policy == "full-access":  # a container or CI: the user's flag or config alone
            return Requirement("run", "", None, "not sandboxed: full-access")
        return self._asked(line, sandbox, where)

    def _asked(self, line: str, sandbox: Sandbox | None, where: str) -> Requirement:
        """Under ``ask``: unasked only plain, allowed, and sandboxed (or allow_unsandboxed)."""
        unasked = sandbox is not None or self.settings.allow_unsandboxed
        plain = is_plain(line)
        if unasked and plain and (allowed_by(line, self.settings.allowed_commands)
                                  or line in self.approvals.allowed("command")):
            return Requirement("run", "", sandbox, where)
        return Requirement("ask", "", sandbox, where, can_always=plain and unasked)

    async def clear(self, action: Action) -> Requirement | None:
        """The requirement once answered (run, refuse, declined); None: stopped (Esc)."""
        found = None if action.kind == "mcp" else \
            await asyncio.get_running_loop().run_in_executor(None, find_sandbox)
        need = self.requirement(action, found)
        if need.verdict != "ask":
            return need
        warning = f"; {self.approvals.problem}" if self.approvals.problem else ""
        request = ApprovalRequest(action.call_id, "mcp" if action.kind == "mcp" else "command",
                                  self.shown(action.line), str(self.root), bool(need.sandbox),
                                  need.where + warning, need.can_always)
        decision = await until_stopped(self.approver(request), self.stop)
        if decision == "stop" and self.stop_turn is not None:
            await self.stop_turn()
        if decision in ("stop", None) and action.kind == "mcp":
            return None
        if decision not in ("once", "always"):
            return Requirement("declined", DECLINED[request.kind])
        if decision == "always" and need.can_always:
            self.approvals.add(request.kind, action.name or action.line)
        return Requirement("run", "", need.sandbox, need.where)

    def environment(self) -> tuple[dict[str, str], Masker]:
        """A command's environment (keys left out) and the masker of their values."""
        secrets = self.settings.provider.secrets
        env = scrubbed_env(os.environ, secrets)
        return env, Masker([*secrets, *(v for k, v in os.environ.items() if k not in env)])

    async def run_line(self, line: str, sandbox: Sandbox | None, *, timeout: float,
                       on_output: Callable[[str], None] | None = None,
                       head_bytes: int, tail_bytes: int) -> CommandRun:
        """Run a cleared shell line with `environment`; ``stop`` ends it."""
        env, masker = self.environment()
        return await run_command(line, self.root, timeout=timeout, env=env, sandbox=sandbox,
                                 on_output=on_output, stop=self.stop, masker=masker,
                                 head_bytes=head_bytes, tail_bytes=tail_bytes,
                                 keep_env=self.settings.command_env,
                                 deny_read=self.settings.sandbox_deny_read)


def escaped(line: str) -> str:
    """``line`` with control and format characters and odd spaces as Python escapes."""
    return "".join(c if c in "\n\t " or unicodedata.category(c)[0] not in "CZ"
                   else c.encode("unicode_escape").decode("ascii") for c in line)


def is_compound(command: str) -> bool:
    """Whether ``command`` could run more than one command or redirect (quoted or not)."""
    return any(mark in command for mark in _COMPOUND)


def is_plain(command: str) -> bool:
    """Neither compound nor with a hidden character: the only lines allowed unasked."""
    return not is_compound(command) and escaped(command) == command


def _words(line: str) -> list[str] | None:
    try:
        return shlex.split(line)
    except ValueError:
        return None


def allowed_by(command: str, allowed_commands: Iterable[str]) -> bool:
    """Whether an entry is the plain line's leading words (``shlex``; none if unparsable)."""
    words = (_words(command) if is_plain(command) else None) or []
    return bool(words) and any((wanted := _words(entry)) and words[:len(wanted)] == wanted
                               for entry in allowed_commands)
