"""One conversation with a model: its history, what the model saw, and its turns.

``Session`` is the session core every front end drives (``SessionApi``); ``run_turn`` is the
one turn driver: it builds the request, runs it, resends once after an overflow, saves.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import aclosing
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from spark_cli.protocol.channel import Channel, ConversationItem, TurnRequest
from spark_cli.protocol.summaries import Compaction
from spark_cli.session.actions.approval import Approver, refuse_all
from spark_cli.session.building.request import (
    BuiltRequest,
    build_request,
    warm_request,
)
from spark_cli.session.compacting import DROP_NOTES, SessionCompaction, TurnInProgress
from spark_cli.session.config.settings import Settings
from spark_cli.session.context.assemble import ContextReport
from spark_cli.session.context.targets import RequestError, scan
from spark_cli.session.events import (
    BlockRejected,
    CommandFinished,
    EditLanded,
    EditRefused,
    SessionEvent,
    TurnFailed,
    WaitingToRetry,
)
from spark_cli.session.extensions.hooks import Hooks
from spark_cli.session.extensions.session_part import SessionExtensions
from spark_cli.session.lazy_applier import LazyApplier
from spark_cli.session.marks import TurnMarks
from spark_cli.session.servers import McpServers
from spark_cli.session.spend.limits import NO_LIMITS, Limits
from spark_cli.session.spend.usage import Usage
from spark_cli.session.steers import SteerLog
from spark_cli.session.tool_access import default_runner
from spark_cli.session.turn import TurnRun
from spark_cli.session.window.learning import RESEND, after_turn, resend_note
from spark_cli.session.window.plan import budget_of
from spark_cli.session.workspace.turns import TurnRecord, rewound

if TYPE_CHECKING:
    from spark_cli.session.api import Keep
    from spark_cli.session.tool_access import RunTool

INTERRUPTED_NOTE = "\n\n[interrupted by the user]"
FEEDBACK_HEAD = "These edits from your previous answer were NOT applied:\n"


class Session(SessionCompaction, SessionExtensions):
    """One conversation with a model over ``channel``, editing files under ``root``.

    The assistant's text (partial too) and the tool calls with their outputs join the
    conversation; refusals of the last turn are told to the model at the start of the next."""

    def __init__(self, channel: Channel | None, root: Path, settings: Settings, *,
                 dry_run: bool = False, run_tool: RunTool | None = None,
                 limits: Limits | None = None) -> None:
        self.channel = channel
        self.root = Path(root).resolve()
        self._settings = settings
        self.dry_run = dry_run
        self.history: list[ConversationItem] = []
        self.turns: list[TurnRecord] = []
        self._compacting = None
        self._turn_compaction: Compaction | None = None  # made inside the running turn
        self._spent: list[Usage] = []  # an automatic compaction's, for the turn it ran for
        self.readable: list[str] = []
        """Files the user named or added: readable even where ``.gitignore`` hides them."""
        self.servers = McpServers(self.root, lambda: self.settings)
        """The MCP servers the config names; their tools join the requests."""
        self.approver: Approver = refuse_all
        self._run_tool = run_tool  # None: ``spark_cli.tools.run.run_tool``, imported when needed
        self._own_tools = run_tool is None  # the real tools: warmed during the first TTFT
        self._run: TurnRun | None = None
        self.seen: dict[str, str] = {}  # the conflict check's baseline
        self._sent: dict[str, str] = {}  # path -> sha256 of the content last sent
        self._feedback: list[str] = []  # refusals to tell the model about next turn
        self._stop = False
        self._steers = SteerLog()
        self._prepared: tuple[str, tuple[str, ...], int, BuiltRequest] | None = None
        self.marks = TurnMarks()
        self.context_tokens = 0
        self.context: ContextReport | None = None
        self.limits: Limits = limits or NO_LIMITS
        """A harness's limits on the run (`spark edit --max-turns`, ``--timeout``)."""
        self.hooks, self._stop_rounds, self._hooked = Hooks(self.root), 0, ""  # `submit`'s text
        self.models: dict[str, str] = {}
        self.keep: Keep | None = None

    @property
    def streaming(self) -> bool:
        return self._run is not None or self._compacting is not None

    def attach(self, channel: Channel | None) -> None:
        self.channel = channel

    @property
    def settings(self) -> Settings:
        return self._settings

    def configure(self, settings: Settings) -> None:
        self._settings = settings
        self._prepared = None  # built with the old settings

    def set_approver(self, approver: Approver) -> None:
        self.approver = approver

    def set_keep(self, keep: Keep) -> None:
        self.keep = keep

    def restore(self, history: Sequence[ConversationItem],
                turns: Sequence[TurnRecord] = ()) -> None:
        if self.streaming:
            raise TurnInProgress("a turn is running: interrupt it first")
        self.reset()
        self.history.extend(history)
        self.turns.extend(turns)

    def rewind(self, index: int) -> str:
        if self.streaming:
            raise TurnInProgress("a turn is running: interrupt it first")
        turn = self.turns[index]
        self.history[:] = rewound(self.history, self.turns, index)
        del self.turns[index:]
        self._sent.clear()  # the files those turns sent are no longer in the conversation
        self._feedback.clear()
        self._prepared = None
        return turn.text

    def files_changed(self) -> None:
        self.seen.clear()
        self._sent.clear()  # an undo can bring back text already sent: the model saw its edit

    def repo_files(self) -> list[str]:
        return scan(self.root).paths()

    def reset(self) -> None:
        if self.streaming:
            raise TurnInProgress("a turn is running: interrupt it first")
        self.history.clear()
        self.turns.clear()
        self._sent.clear()
        self._feedback.clear()
        self._prepared = None

    async def warm(self) -> None:
        if self.channel is None:
            return
        if self.history:
            await self.channel.warm()
            return
        await self.channel.warm(warm_request(self.settings, self.root))

    async def interrupt(self) -> None:
        if self._compacting is not None and self.channel is not None:
            self._compacting.stop()  # the conversation stays as it was
            self._stop = True  # a turn waiting on it sends nothing more
            await self.channel.stop()
            return
        run = self._run
        if run is None or self.channel is None:
            return
        self._stop = True
        if run.tools is not None:
            run.tools.interrupt()  # a running tool stops; the loop sends nothing more
        if run.responding:
            await self.channel.stop()

    async def steer(self, text: str) -> bool:
        run, channel = self._run, self.channel
        if run is None or not run.responding or channel is None or not channel.capabilities.steer:
            return False
        await channel.steer(text)
        self._steers.asked(text)
        return True

    def prepare(self, instruction: str, files: Sequence[str]) -> TurnFailed | None:
        try:
            built = self._build(instruction, files)
        except RequestError as exc:
            self._prepared = None
            return exc.failure()
        self._prepared = (instruction, tuple(files), len(self.history), built)
        self.context = built.context
        return None

    @property
    def prepared(self) -> TurnRequest | None:
        return self._prepared[3].request if self._prepared is not None else None

    def _build(self, instruction: str, files: Sequence[str],
               drop_note: str = "") -> BuiltRequest:
        asked = instruction
        if self._feedback:
            notes = "".join(f"- {note}\n" for note in self._feedback)
            asked = f"{FEEDBACK_HEAD}{notes}\n{instruction}"
        built = build_request(self.settings, self.root, files, asked,
                              history=tuple(self.history),
                              already_sent=self._sent, extra_tools=self.servers.specs(),
                              drop_note=drop_note or DROP_NOTES[
                                  "" if self.settings.auto_compact else "off"])
        if self.servers.notes:  # an MCP server not ready (and not cached) is left out
            built = replace(built, context=replace(
                built.context, notes=(*built.context.notes, *self.servers.notes)))
        if self.limits.deadline is not None:
            built = replace(built, request=self.limits.timed(built.request))
        if instruction in self.models:  # a prompt file's ``model``: its turn's requests only
            built = replace(built, request=replace(built.request, model=self.models[instruction]))
        return built

    def _take_prepared(self, instruction: str, files: Sequence[str]) -> BuiltRequest:
        prepared, self._prepared = self._prepared, None
        if prepared is not None and prepared[:3] == (instruction, tuple(files),
                                                     len(self.history)):
            return prepared[3]
        return self._build(instruction, files)

    async def run_turn(self, instruction: str,
                       files: Sequence[str]) -> AsyncIterator[SessionEvent]:
        """One turn; an overflow that taught the window is sent once more within it; then saved."""
        if self.streaming:
            raise TurnInProgress("a turn is already running: interrupt it or wait for it")
        shown_at = len(self.keep.shown()) - 1 if self.keep is not None else -1
        try:
            sent_with, wrote, failed, said = self.settings, False, False, None
            async with aclosing(self._attempt(instruction, files, shown_at)) as events:
                async for event in events:
                    if type(event) is TurnFailed and not failed:  # this turn's own
                        failed, said = True, resend_note(self, sent_with, event, wrote=wrote)
                        if said is not None:
                            continue
                    wrote = wrote or type(event) in (EditLanded, EditRefused, BlockRejected)
                    yield event
            if said is not None:
                yield WaitingToRetry(0.0, f"{said}; " + RESEND.format(
                    window=self.settings.context_window), 1)
                async with aclosing(self._attempt(self._hooked, files, shown_at)) as events:
                    async for event in events:
                        yield event
        finally:
            for text in (instruction, self._hooked):  # a resend keeps the prompt file's model
                self.models.pop(text, None)
            self._hooked = ""  # a later turn of the same text runs its hooks again
            self.save()

    def save(self) -> None:
        keep = self.keep
        if keep is None:
            return
        provider = self.settings.provider
        problem = keep.store.save_conversation(self.history, provider=provider.name,
                                               model=provider.model, shown=keep.shown(),
                                               turns=self.turns)
        if problem:
            keep.problem(problem)

    async def _attempt(self, instruction: str, files: Sequence[str],
                       shown_at: int) -> AsyncGenerator[SessionEvent, None]:
        channel = self.channel
        if channel is None:
            raise RuntimeError("the session has no channel yet: attach one first")
        failure = None
        try:
            instruction = instruction if instruction == self._hooked else await self.submit(
                instruction)
            built = self._take_prepared(instruction, files)
        except RequestError as exc:
            failure = exc.failure()
        while self.hooks.warned:  # the prompt hooks', a blocked message's too
            yield self.hooks.warned.pop(0)
        if failure is not None:
            yield failure
            return
        if self._over_threshold(built):
            rebuilt: list[BuiltRequest] = []
            async for event in self._compact_first(instruction, files, built, rebuilt):
                yield event
            if not rebuilt:
                return  # cancelled (the turn is not sent), or the request failed (said)
            built = rebuilt[0]
        run = self._start(built, instruction)
        started, by_commands = time.time(), list[str]()
        try:
            async for event in run.stream(channel):
                if type(event) is CommandFinished:
                    by_commands.extend(event.changed)
                yield event
                while self.hooks.warned:  # a tool hook's, after the call's event
                    yield self.hooks.warned.pop(0)
            for event in run.close():
                yield event
        finally:
            self._run = None
            batch = run.applier.end()
            turn = TurnRecord(instruction, started, (), (batch.id,) if batch else (),
                              tuple(f.path for f in batch.files) if batch else (),
                              tuple(dict.fromkeys(by_commands)), shown_at)
            self._remember(built, run, cancelled=self._stop, turn=turn)
        self._learn_window(run, built)
        yield run.result()
        if run.failure is None and not self._stop:
            async for event in self._stop_hooks(files):
                yield event

    def _learn_window(self, run: TurnRun, built: BuiltRequest) -> None:  # overflows, hints
        tools, usage = run.tools, run.usage  # a follow-up that overflowed held the tools' items
        pieces = tools.used if tools is not None and tools.items else built.pieces
        sent = usage.input_tokens if usage is not None and usage.input_tokens \
            else built.input_tokens
        self._settings = after_turn(self.settings, run.failure, pieces, sent)

    def _start(self, built: BuiltRequest, instruction: str) -> TurnRun:
        self.context_tokens = built.input_tokens
        self.context = built.context
        self._feedback.clear()
        self._steers = SteerLog()
        for target in built.targets:
            if target.path in built.sent:
                self.seen[target.path] = target.text
            if target.path not in self.readable:
                self.readable.append(target.path)
        label = instruction.strip().splitlines()[0][:80] if instruction.strip() else "spark turn"
        applier = LazyApplier(self.root, self.seen, label,
                              allow_syntax_errors=self.settings.allow_syntax_errors,
                              dry_run=self.dry_run, sent=built.sent)
        self._stop = False
        tools = None
        if built.request.tools:
            # deferred: launch -> request (asyncio: the request has left)
            from spark_cli.session.actions.commands import CommandCalls
            from spark_cli.session.actions.orchestrator import Orchestrator
            from spark_cli.session.tool_loop import ToolLoop

            policy = Orchestrator(self.root, self.settings, self.approver, self.interrupt)
            commands = CommandCalls(policy)
            mcp = self.servers.calls(policy)
            tools = ToolLoop(self.root, self._runner(), readable=self.readable,
                             limit=self.settings.max_tool_calls, used=built.pieces,
                             cap=budget_of(self.settings).cap, warm=self._own_tools,
                             commands=commands, mcp=mcp,
                             specs=self.servers.follow_up(built.request) if mcp else None,
                             hooks=self.hooks)
        run = self._run = TurnRun(built.request, applier, self._steers, self._feedback,
                                  provider=self.settings.provider, stopped=lambda: self._stop,
                                  tools=tools, price=self.settings.price_for(built.request.model),
                                  limits=self.limits,
                                  input_estimate=built.input_tokens,
                                  compact=lambda loop: self._compact_turn(built, loop))
        self._turn_compaction = None
        for usage in self._spent:
            run.meter.add(usage)
        self._spent.clear()
        self.marks = run.marks
        return run

    def start_servers(self) -> None:
        self.servers.start()

    def servers_pending(self) -> bool:
        return self.servers.uncached()

    async def wait_for_servers(self) -> None:
        await self.servers.wait_uncached()

    async def close_servers(self) -> None:
        await self.servers.aclose()

    def servers_status(self) -> list[str]:
        return self.servers.status_lines()

    def _runner(self) -> RunTool:
        if self._run_tool is None:
            self._run_tool = default_runner()
        return self._run_tool

    def _remember(self, built: BuiltRequest, run: TurnRun, *, cancelled: bool,
                  turn: TurnRecord) -> None:
        """Keep the conversation (a partial answer too), the turn's record, what the model knows."""
        seen = run.applier.seen
        if seen is not None:
            self.seen = dict(seen)  # our own writes are not the user's changes
        added = run.conversation(INTERRUPTED_NOTE if cancelled else "")
        if built.history is not None:  # old tool outputs were shortened to fit the window
            self.history[:] = built.history
        if not added:
            return  # nothing came back: the next turn sends this request again
        self.history.append(built.user_message)
        self.history.extend(added)
        self.turns.append(replace(turn, items=(built.user_message, *added)))
        if self._turn_compaction is not None:  # the turn compacted its own earlier rounds
            self._fold(self._turn_compaction)
            self._turn_compaction = None
        for target in built.targets:
            if target.path in built.sent:
                self._sent[target.path] = target.sha256
