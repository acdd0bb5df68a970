"""Hooks: the user's ``[[hooks.EVENT]]`` commands at a turn's events, in Claude Code's shapes
(stdin JSON, exit 2 or ``{"decision": "block"}`` blocks); a failure that does not block is a
`HookWarning` for the user. :class:`Hooks` keeps each hook's last result (``/hooks``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spark_cli.record import record
from spark_cli.session.config.layers import config_files, read_toml
from spark_cli.session.events import HookWarning

if TYPE_CHECKING:
    from spark_cli.checks.command_run import CommandRun

EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")
TOOL_EVENTS = ("PreToolUse", "PostToolUse")
DEFAULT_TIMEOUT_S = 60.0
CAP_BYTES = 64 * 1024
NOTE_CHARS = 4_000


@record
class Hook:
    """One ``[[hooks.EVENT]]`` table; ``source``: the file and its place there."""

    event: str
    command: str
    matcher: str = ""
    timeout_s: float = DEFAULT_TIMEOUT_S
    source: str = ""


@record
class HookOutcome:
    """One run of a hook: ``block`` with ``reason``, ``context`` (stdout), ``warning``."""

    line: str
    block: bool = False
    reason: str = ""
    context: str = ""
    warning: str = ""


def read_hooks(root: Path, env: Mapping[str, str]) -> tuple[list[Hook], list[str]]:
    """The hooks of the config files (a project's under trust) and the bad tables' problems."""
    hooks: list[Hook] = []
    problems: list[str] = []
    for _, path in config_files(root, env):
        try:
            tables = read_toml(path).get("hooks", {})
        except ValueError as exc:
            problems.append(str(exc))
            continue
        if not isinstance(tables, dict):
            problems.append(f"{path}: 'hooks' must be tables of [[hooks.EVENT]]")
            continue
        for event, entries in tables.items():
            for i, entry in enumerate(entries if isinstance(entries, list) else [entries]):
                where = f"{path}: hooks.{event}[{i}]"
                try:
                    hooks.append(_hook(event, entry, where))
                except ValueError as exc:
                    problems.append(f"{where}: {exc}")
    return hooks, problems


def _hook(event: str, entry: object, where: str) -> Hook:
    if event not in EVENTS:
        raise ValueError(f"unknown event (known: {', '.join(EVENTS)})")
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str) \
            or not entry["command"].strip():
        raise ValueError("needs command = \"…\" (a shell line)")
    matcher = entry.get("matcher", "")
    timeout = entry.get("timeout_s", DEFAULT_TIMEOUT_S)
    if not isinstance(matcher, str):
        raise ValueError("matcher must be a string (a regular expression)")
    try:
        re.compile(matcher)
    except re.error as exc:
        raise ValueError(f"matcher is not a regular expression ({exc})") from None
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise ValueError("timeout_s must be a positive number of seconds")
    return Hook(event, entry["command"], matcher, float(timeout), where)


class Hooks:
    """One session's hooks (read when first used) and their last results."""

    def __init__(self, root: Path, env: Mapping[str, str] | None = None) -> None:
        self.root = root
        self.env = dict(os.environ if env is None else env)
        self.session_id = os.urandom(16).hex()
        self._hooks: tuple[list[Hook], list[str]] | None = None
        self.last: dict[str, str] = {}
        """Each hook's last result (by its source), for ``/hooks``."""
        self.secrets: tuple[str, ...] = ()
        self.warned: list[HookWarning] = []

    @property
    def hooks(self) -> list[Hook]:
        if self._hooks is None:
            self._hooks = read_hooks(self.root, self.env)
        return self._hooks[0]

    def has(self, event: str) -> bool:
        return any(h.event == event for h in self.hooks)

    def lines(self) -> list[str]:
        """``/hooks``: each hook, where it is from, its last result; the bad tables."""
        self._hooks = None  # read again: the user may have just edited the config
        lines = [f"{h.event} {h.matcher or '*'}: {h.command} ({h.source}) · "
                 f"{self.last.get(h.source, 'not run yet')}" for h in self.hooks]
        assert self._hooks is not None
        return (lines or ["no hooks configured ([[hooks.EVENT]] in config.toml)"]) + [
            f"✗ {problem}" for problem in self._hooks[1]]

    async def run(self, event: str, tool: str = "", **fields: Any) -> list[HookOutcome]:
        """Every hook of ``event`` (matching ``tool``), in order."""
        chosen = [h for h in self.hooks if h.event == event and (
            event not in TOOL_EVENTS or h.matcher in ("", "*") or re.fullmatch(h.matcher, tool))]
        if not chosen:
            return []
        payload = {"session_id": self.session_id, "transcript_path": "", "cwd": str(self.root),
                   "hook_event_name": event, **({"tool_name": tool} if tool else {}), **fields}
        data = json.dumps(payload).encode()
        from spark_cli.checks.runner import run_hook  # deferred: a hook's first run
        from spark_cli.protocol.secrets import scrubbed_env  # deferred: as run_hook

        outcomes = []
        for hook in chosen:
            run, err = await run_hook(hook.command, self.root, data, timeout=hook.timeout_s,
                                      env=scrubbed_env(self.env, self.secrets),
                                      cap_bytes=CAP_BYTES)
            outcome = _outcome(hook, run, err)
            self.last[hook.source] = outcome.line
            if outcome.warning:
                self.warned.append(HookWarning(event, hook.command, outcome.warning))
            outcomes.append(outcome)
        return outcomes

    async def prompt(self, text: str, first: bool) -> tuple[str, str | None]:
        """``text`` with what the prompt hooks add, and why one blocked it (None: none did)."""
        outs = await self.run("SessionStart", source="startup") if first else []
        submitted = await self.run("UserPromptSubmit", prompt=text)
        blocked = [o.reason for o in submitted if o.block]
        if blocked:
            return text, "\n".join(blocked)
        added = [o.context for o in (*outs, *submitted) if o.context]
        return text + "".join(f"\n\n{a}" for a in added), None

    async def pre(self, tool: str, arguments: str) -> str | None:
        """Why PreToolUse hooks block this call (None: it runs)."""
        outs = await self.run("PreToolUse", tool, tool_input=_input(arguments))
        return "\n".join(o.reason for o in outs if o.block) or None

    async def post(self, tool: str, arguments: str, output: str) -> str:
        """What PostToolUse hooks add to the call's output for the model ("" mostly)."""
        outs = await self.run("PostToolUse", tool, tool_input=_input(arguments),
                              tool_response=output)
        notes = [o.reason or o.context for o in outs]
        return "".join(f"\n[hook] {n}" for n in notes if n)

    async def stop(self, again: bool) -> str | None:
        """What Stop hooks send back to the model (exit 2's stderr), None: the turn ends."""
        outs = await self.run("Stop", stop_hook_active=again)
        return "\n".join(o.reason for o in outs if o.block) or None


def _input(arguments: str) -> object:
    try:
        return json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        return arguments


def _outcome(hook: Hook, run: CommandRun, err: str) -> HookOutcome:
    err, out, code = err.strip()[:NOTE_CHARS], run.output, run.exit_code
    if run.ended == "timeout":
        why = f"timed out after {hook.timeout_s:g} s and was killed"
        return HookOutcome(f"killed: timeout after {hook.timeout_s:g} s", warning=why)
    decision = _decision(out)
    if code == 2 or decision.get("decision") == "block":
        reason = str(decision.get("reason") or err or f"blocked by the hook {hook.command!r}")
        return HookOutcome(f"blocked: {reason.splitlines()[0][:120]}", True,
                           reason[:NOTE_CHARS])
    if code != 0:
        why = err.splitlines()[-1][:300] if err else ""
        named = {126: "not executable", 127: "not found"}.get(code or 0, "failed")
        warning = f"{named} (exit {code})" + (f": {why}" if why else "")
        return HookOutcome(warning[:120], warning=warning)
    if "\ufffd" in out or "\x00" in out:
        return HookOutcome("exit 0: binary output", warning="printed binary output "
                           "(not UTF-8 text): left out")
    context = str(decision.get("additionalContext", "")) if decision else out.strip()
    flood = f"flooded stdout ({run.cut_bytes + CAP_BYTES:,} bytes): cut" if run.cut_bytes else ""
    return HookOutcome("exit 0" + (" (cut)" if flood else ""),
                       context=context[:NOTE_CHARS], warning=flood)


def _decision(out: str) -> dict[str, Any]:
    """A JSON object on stdout (Claude Code's shape), else {}."""
    text = out.strip()
    if not text.startswith("{"):
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
