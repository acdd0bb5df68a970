"""Slash commands: :class:`Commands` parses a ``/name args`` line and runs it, answering with a
line (a bad one changes nothing), through what it is handed: the session, an ``Output``, the
controllers and a :class:`CommandHost`. ``CATALOG`` describes each (``/help``, completion)."""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol

from spark_cli.record import record
from spark_cli.session.api import SessionApi
from spark_cli.tui.commands.copying import last_answer, last_code, line_count
from spark_cli.tui.commands.rewind import Rewinder
from spark_cli.tui.output import Busy, Output

if TYPE_CHECKING:
    from spark_cli.tui.commands.context_files import ContextFiles
    from spark_cli.tui.commands.queue_panel import QueuePanel
    from spark_cli.tui.commands.test_command import TestRunner
    from spark_cli.tui.commands.tool_calls import CallOutputs
    from spark_cli.tui.cost import UsageLedger
    from spark_cli.tui.deep.deep_view import DeepController


@record
class CommandInfo:
    """One command as the user meets it: ``/name``, its arguments, what it does."""

    name: str
    args: str
    summary: str
    completes: str = ""
    """What its argument completes to: "paths", "context" (added files), "models", ""."""


CATALOG: tuple[CommandInfo, ...] = (
    CommandInfo("add", "PATH…", "add files every turn sends in full", "paths"),
    CommandInfo("drop", "PATH…", "remove files from the context", "context"),
    CommandInfo("files", "", "list the files every turn sends"),
    CommandInfo("diff", "", "what spark changed in this session"),
    CommandInfo("call", "[N]", "what tool call N gave the model (Ctrl+O: the last)"),
    CommandInfo("mcp", "", "the MCP servers: state, tools, notes"),
    CommandInfo("cost", "", "tokens and cost: per turn, per model, the deep track's too"),
    CommandInfo("hooks", "", "your hooks ([[hooks.EVENT]]) and their last results"),
    CommandInfo("skills", "", "your skills (SKILL.md folders): $name attaches one"),
    CommandInfo("init", "", "the model writes a first AGENTS.md (an undoable edit)"),
    CommandInfo("undo", "[--force]", "undo the last batch of edits (Ctrl+Z)"),
    CommandInfo("rewind", "[N [code|conversation|both] [--force]]",
                "back to an earlier message: its code, its conversation (Esc Esc)"),
    CommandInfo("test", "[ARGS]", "run the tests (Esc stops them)"),
    CommandInfo("fix", "", "send the last test failure to the model"),
    CommandInfo("queue", "[edit|drop|up|down N | clear]", "list or edit the queued messages"),
    CommandInfo("model", "NAME", "switch the model", "models"),
    CommandInfo("provider", "NAME", "switch the provider", "providers"),
    CommandInfo("best", "N MESSAGE | show K | pick K",
                "race N answers in scratch trees, merge the best; view or switch to another"),
    CommandInfo("deep", "[TASK | show|apply|drop|cancel N]",
                "hand a task to the deep model (Ctrl+G), list, review, merge"),
    CommandInfo("copy", "[code]", "copy the last answer (or its last code block) to the clipboard"),
    CommandInfo("compact", "[FOCUS]", "fold the older turns into one summary now (Esc cancels)"),
    CommandInfo("clear", "", "clear the transcript, start a new conversation"),
    CommandInfo("resume", "[ID]", "reopen a saved conversation (several: a list)"),
    CommandInfo("fork", "", "keep this conversation saved, go on in a copy"),
    CommandInfo("help", "", "keys and commands"),
    CommandInfo("quit", "", "quit, as Ctrl+Q (/exit too)"),
)
RESERVED = frozenset({info.name for info in CATALOG} | {"exit"})
"""Built-in names: a prompt file with one of them is ``/user:NAME``."""
KEYS = (
    "Enter send · while it streams: Enter redirects, Tab queues, Esc interrupts",
    "Ctrl+J / Alt+Enter new line · Up/Down prompt history · Ctrl+R search it · PgUp/PgDn scroll",
    "/ commands · @path attach a file · Ctrl+Z undo edits · Esc Esc rewind · Ctrl+G deep task",
    "Ctrl+O the last tool call's result (/call N another) · drag with the mouse, Ctrl+C copies",
)


def help_lines() -> list[str]:
    """``/help``: the keys, then one line per command."""
    lines = list(KEYS)
    for info in CATALOG:
        lines.append(f"/{info.name} {info.args}".ljust(29) + " " + info.summary)
    return lines


def parse(line: str) -> tuple[str, list[str]] | str:
    """``(name, args)`` of a command line, or the problem with it."""
    try:
        words = shlex.split(line[1:])
    except ValueError as exc:
        return f"cannot read that command: {exc}"
    if not words:
        return "an empty command: /help lists them"
    return words[0].lower(), words[1:]


class CommandHost(Protocol):
    """What only the screen can do for a command."""

    def clear_transcript(self) -> None: ...

    def resume_conversation(self, session_id: str = "") -> None: ...

    def fork_conversation(self) -> tuple[str, str]:
        """Keep the conversation saved, go on in a new one: (kept id, new id)."""
        ...

    def conversation_rewound(self, index: int, text: str) -> None:
        """Turns ``index`` on were dropped: show what stays, ``text`` back in the prompt."""

    def to_prompt(self, text: str) -> None:
        """Put ``text`` in the prompt (for the user to edit or send)."""

    def copy_to_clipboard(self, text: str) -> None:
        """Put ``text`` on the terminal's clipboard (Textual's ``App`` method)."""

    async def request_quit(self) -> None:
        """Quit as Ctrl+Q does (asking first while deep tasks run)."""

    async def reconfigure(self, flags: dict[str, object]) -> None:
        """``/model``, ``/provider``: new settings; the conversation carries over."""

    def compact(self, focus: str) -> bool:
        """``/compact``: start a compaction (False while a turn runs)."""


Handler = Callable[[list[str]], Awaitable[None]]


class Commands:
    """Runs slash commands (see the module doc); owns this session's undo mark."""

    def __init__(self, session: SessionApi, out: Output, host: CommandHost, *,
                 files: ContextFiles, busy: Busy, tests: TestRunner,
                 deep: DeepController, queue: QueuePanel, calls: CallOutputs,
                 ledger: UsageLedger | None = None,
                 best: Handler | None = None) -> None:
        self.session = session
        self.out = out
        self.host = host
        self.files = files
        self.busy = busy
        self.ledger = ledger
        self.undo_mark: str | None = None
        """The newest undo batch before this session: /undo and /diff stop there."""
        rewinder = Rewinder(session, out, busy, host.conversation_rewound, host.to_prompt)
        self._handlers: dict[str, Handler] = {
            "add": self._add, "drop": self._drop, "files": self._files, "diff": self._diff,
            "undo": self._undo, "test": tests.run, "fix": tests.fix, "queue": queue.command,
            "model": self._model, "provider": self._provider, "deep": self._deep_for(deep),
            "clear": self._clear, "resume": self._resume, "help": self._help,
            "call": calls.command, "copy": self._copy, "quit": self._quit, "exit": self._quit,
            "mcp": self._mcp, "rewind": rewinder.command, "fork": self._fork,
            "compact": self._compact, "cost": self._cost, "hooks": self._hooks,
            "skills": self._skills, "init": self._init,
        }
        self._submit = tests.submit
        if best is not None:
            self._handlers["best"] = best

    def mark_start(self) -> None:
        """Read the undo mark (after the first frame, before any turn can add a batch)."""
        from spark_cli.session.workspace.changes import latest_batch_id  # deferred: TUI launch

        self.undo_mark = latest_batch_id(self.session.root)

    async def run(self, line: str) -> None:
        parsed = parse(line)
        if isinstance(parsed, str):
            self.out.note(parsed, "yellow")
            return
        name, args = parsed
        handler = self._handlers.get(name)
        if handler is None:
            self.out.note(f"unknown command /{name}: /help lists them", "yellow")
            return
        await handler(args)

    def _idle(self, what: str = "Esc first") -> bool:
        if self.busy():
            self.out.note(f"a turn is running: {what}", "yellow")
            return False
        return True

    async def _help(self, args: list[str]) -> None:
        for text in help_lines():
            self.out.note(text)

    async def _init(self, args: list[str]) -> None:
        """``/init``: the model writes a first AGENTS.md, as an edit (undoable)."""
        # deferred: TUI launch
        from spark_cli.session.extensions.prompt_files import init_ask

        if not self._idle():
            return
        ask = init_ask(self.session.root, self.session.settings.test_command)
        if ask is None:
            self.out.note("AGENTS.md exists: /init writes only a first one", "yellow")
            return
        self._submit(ask)

    async def _clear(self, args: list[str]) -> None:
        if not self._idle():
            return
        self.host.clear_transcript()
        self.session.reset()
        self.out.note("new conversation (files on disk are unchanged; /undo still works)")

    async def _copy(self, args: list[str]) -> None:
        if args not in ([], ["code"]):
            self.out.note("usage: /copy (the last answer) or /copy code (its last code block)",
                          "yellow")
            return
        answer = last_answer(self.session.history)
        text = answer if answer is None or not args else last_code(answer)
        if text is None:
            self.out.note("nothing to copy: " + ("no answer yet" if answer is None
                                                 else "the last answer has no code block"),
                          "yellow")
            return
        self.host.copy_to_clipboard(text)
        self.out.note(f"copied {'its last code block' if args else 'the last answer'} "
                      f"({line_count(text)}) to the clipboard (OSC 52: the terminal must allow it)")

    async def _compact(self, args: list[str]) -> None:
        if self._idle() and self.host.compact(" ".join(args)):
            self.out.note("compacting the conversation… (Esc cancels)", "dim")

    async def _quit(self, args: list[str]) -> None:
        await self.host.request_quit()

    async def _resume(self, args: list[str]) -> None:
        if len(args) > 1:
            self.out.note("usage: /resume [ID] (no ID: the list, or the only one)", "yellow")
        elif self._idle():
            self.host.resume_conversation(args[0] if args else "")

    async def _fork(self, args: list[str]) -> None:
        if not self._idle():
            return
        if not self.session.turns:
            self.out.note("nothing to fork yet: no message in this conversation", "yellow")
            return
        kept, new = self.host.fork_conversation()
        self.out.note(f"forked: the conversation so far stays saved as {kept} (/resume {kept}); "
                      f"going on in {new}", "bold")

    async def _undo(self, args: list[str]) -> None:
        from spark_cli.session.workspace.changes import undo_last_batch  # deferred: TUI launch

        if not self._idle("Esc first, then /undo"):
            return
        report = undo_last_batch(self.session.root, force=args == ["--force"],
                                 since_batch=self.undo_mark)
        style = {"undone": "bold green", "nothing": "dim"}.get(report.status, "bold red")
        self.out.note(f"↶ {report.message}", style)
        for refused in report.refused:
            self.out.note(f"  {refused.path}: {refused.reason}", "red")
        if report.status == "refused":
            self.out.note("/undo --force restores them anyway (your later changes are lost)")
        if report.restored:
            self.session.files_changed()  # the model's view is stale: files are sent again

    async def _diff(self, args: list[str]) -> None:
        from spark_cli.session.workspace.changes import session_diff  # deferred: TUI launch
        from spark_cli.tui.transcript.edit_view import diff_syntax  # deferred: TUI launch

        diffs = session_diff(self.session.root, self.undo_mark)
        if not diffs:
            self.out.note("spark has changed nothing in this session (or it was all undone)")
            return
        for path, diff in diffs:
            self.out.note(path, "bold")
            self.out.write(diff_syntax(diff))

    async def _model(self, args: list[str]) -> None:
        await self._switch("model", args, self.session.settings.provider.model)

    async def _provider(self, args: list[str]) -> None:
        await self._switch("provider", args, self.session.settings.provider.name,
                           ": mock, openai, cerebras, openai-compatible or one from your config")

    async def _switch(self, key: str, args: list[str], now: str, more: str = "") -> None:
        if len(args) != 1:
            self.out.note(f"usage: /{key} NAME (now {now}){more}", "yellow")
            return
        await self.host.reconfigure({key: args[0]})

    async def _add(self, args: list[str]) -> None:
        if not args:
            self.out.note("usage: /add PATH… (the files every turn sends in full)", "yellow")
            return
        for path in args:
            problem = self.files.add(path)
            if problem is None:
                self.out.note(f"added {path} to the context", "green")
            else:
                self.out.note(f"✗ {problem}", "red")

    async def _drop(self, args: list[str]) -> None:
        if not args:
            self.out.note("usage: /drop PATH…", "yellow")
            return
        for path in args:
            problem = self.files.drop(path)
            self.out.note(f"dropped {path}" if problem is None else f"✗ {problem}",
                          "dim" if problem is None else "red")

    async def _files(self, args: list[str]) -> None:
        files = self.files.files()
        self.out.note("files every turn sends: " + (", ".join(files) if files else
                      "none (/add PATH; files named in a message are sent too)"))
        report = self.session.context
        if report is not None:
            parts = ", ".join(f"{name} {tokens:,}" for name, tokens in report.parts.items()
                              if tokens)
            self.out.note(f"last request: {report.used:,} of {report.budget:,} tokens ({parts})")

    async def _cost(self, args: list[str]) -> None:
        for line in self.ledger.lines() if self.ledger is not None else []:
            self.out.note(line, "bold" if line.startswith("session total") else "")

    async def _mcp(self, args: list[str]) -> None:
        for line in self.session.servers_status():
            self.out.note(line, "dim" if line.startswith("  ") else "")

    async def _hooks(self, args: list[str]) -> None:
        for line in self.session.hooks_status():
            self.out.note(line, "red" if line.startswith("✗") else "")

    async def _skills(self, args: list[str]) -> None:
        from spark_cli.session.extensions.skills import load_skills  # deferred: TUI launch

        for skill in load_skills(self.session.root):
            self.out.note(f"${skill.name}: {skill.problem or skill.description} ({skill.path})",
                          "red" if skill.problem else "")
        self.out.note("skills: .agents/skills/, .claude/skills/ (trusted), ~/.agents/skills/",
                      "dim")

    @staticmethod
    def _deep_for(deep: DeepController) -> Handler:
        async def run(args: list[str]) -> None:
            from spark_cli.tui.deep.deep_commands import deep_command  # deferred: TUI launch

            await deep_command(deep, args)

        return run
