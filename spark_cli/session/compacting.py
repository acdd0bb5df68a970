"""Compaction: one run over the session's channel (the conversation changed only when the
summary came back whole), and `SessionCompaction`, mixed into `Session`: when it compacts
(before a turn past ``compact_at``, inside a long agentic turn, ``/compact``)."""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from contextlib import aclosing
from pathlib import Path
from typing import TYPE_CHECKING

from spark_cli.protocol.channel import (
    Channel,
    ChannelError,
    ConversationItem,
    Message,
    TextDelta,
    TurnFinished,
    TurnRequest,
    UsageReported,
)
from spark_cli.protocol.summaries import Compaction
from spark_cli.protocol.tokens import count_tokens
from spark_cli.session.config.settings import Settings
from spark_cli.session.context.assemble import ContextReport
from spark_cli.session.context.targets import RequestError
from spark_cli.session.context.tool_outputs import items_tokens
from spark_cli.session.events import (
    CompactionFinished,
    CompactionOutcome,
    CompactionStarted,
    SessionEvent,
    TurnCompleted,
)
from spark_cli.session.spend.usage import Usage, UsageMeter
from spark_cli.session.window.compaction import (
    compaction_request,
    split_at,
    summary_message,
    turn_starts,
)
from spark_cli.session.window.plan import budget_of

if TYPE_CHECKING:
    from spark_cli.session.building.request import BuiltRequest
    from spark_cli.session.tool_loop import ToolLoop
    from spark_cli.session.turn import TurnRun

LEFT = "the conversation is as it was"
KEPT_SHARE = 0.5
"""An automatic compaction keeps fewer turns whole past this share of ``compact_at``'s room."""


class CompactionRun:
    """Compacts ``history`` once (``result``: the summary and where it cut; ``stop`` cancels)."""

    def __init__(self, settings: Settings, root: Path, history: Sequence[ConversationItem],
                 focus: str = "", *, cut: int | None = None) -> None:
        self.settings = settings
        self.root = root
        self.history = tuple(history)
        self.focus = focus
        self.cut = cut
        """Where to cut (a long turn's latest tool round); None: keep the latest turns."""
        self.result: Compaction | None = None
        self.stopped = False
        self.usage: Usage | None = None
        """What the compaction request used (set once it was answered or stopped)."""

    def stop(self) -> None:
        self.stopped = True

    async def run(self, channel: Channel, before: int, *, auto: bool,
                  applied: Callable[[Compaction], int]) -> AsyncIterator[SessionEvent]:
        """The compaction's events; ``applied`` takes the result, gives the size after."""
        settings, window = self.settings, self.settings.context_window
        cut, keep = self._cut(auto)
        if cut is None:
            yield CompactionFinished("nothing", before, before, window, 0.0,
                                     f"nothing to compact: the last {keep} turn"
                                     f"{'s' if keep != 1 else ''} are kept whole "
                                     "(compact_keep_turns)")
            return
        turns = len(turn_starts(self.history[:cut]))
        yield CompactionStarted(before, window, auto)
        started = time.perf_counter()
        written, why = await self._summary(channel, compaction_request(
            settings, self.history, cut, self.focus))
        seconds = time.perf_counter() - started
        if self.stopped or why is not None:
            outcome: CompactionOutcome = "cancelled" if self.stopped else "failed"
            line = (f"compaction cancelled: {LEFT}" if self.stopped
                    else f"✗ compaction failed ({why}): {LEFT}")
            yield CompactionFinished(outcome, before, before, window, seconds, line, turns, auto,
                                     self.usage)
            return
        text, cut_short = summary_message(settings, self.root, self.history, cut, written)
        self.result = Compaction(text, cut)
        after = applied(self.result)
        line = (f"context {_pct(before, window)} → {_pct(after, window)} · compacted "
                f"{turns} turn{'s' if turns != 1 else ''} in {seconds:.1f} s")
        if cut_short:
            line += " · the summary was cut to its budget"
        yield CompactionFinished("compacted", before, after, window, seconds, line, turns,
                                 auto, self.usage)


    def _cut(self, auto: bool) -> tuple[int | None, int]:
        """Where to cut, and the turns kept whole."""
        settings, keep = self.settings, self.settings.compact_keep_turns
        cut = self.cut or split_at(self.history, keep)
        room = KEPT_SHARE * settings.compact_at * settings.input_budget / settings.token_scale
        while self.cut is None and auto and keep > 1 and (
                cut is None or items_tokens(self.history[cut:]) > room):
            keep -= 1  # fewer turns whole rather than a compaction at every turn, or none
            cut = split_at(self.history, keep) or cut
        return cut, keep

    async def _summary(self, channel: Channel, request: TurnRequest) -> tuple[str, str | None]:
        """The summary the model wrote, and why there is none (None: there is)."""
        parts: list[str] = []
        why: str | None = None
        meter = UsageMeter(request.model, self.settings.price_for(request.model))
        meter.requests = 1
        try:
            async for event in channel.stream(request):
                if type(event) is TextDelta:
                    parts.append(event.text)
                elif type(event) is UsageReported:
                    meter.reported(event.input_tokens, event.cached_tokens, event.output_tokens)
                elif type(event) is TurnFinished and event.status in ("failed", "cancelled"):
                    why = event.reason or event.status
        except ChannelError as exc:
            why = exc.message
        written = "".join(parts)
        if not (meter.input or meter.output):  # the server said nothing: spark's count
            meter.guessed(items_tokens(request.messages), count_tokens(written))
        self.usage = meter.usage()
        if why is None and not written.strip():
            why = "the model wrote no summary"
        return written, why


def _pct(tokens: int, window: int) -> str:
    return f"{round(100 * tokens / window)}%" if window else f"{tokens:,} tokens"


DROP_NOTES = {"off": " (auto_compact is off: they were not summarised)",
              "failed": " (the compaction failed: they were not summarised)",
              "short": " (even after the compaction)", "": " (not summarised)"}


class TurnInProgress(RuntimeError):
    """``run_turn`` was called while another turn of the same session is still running."""


class SessionCompaction:
    """What `Session` does to compact its conversation (it holds the state)."""

    channel: Channel | None
    root: Path
    history: list[ConversationItem]
    context: ContextReport | None
    context_tokens: int
    _compacting: CompactionRun | None
    _turn_compaction: Compaction | None
    _prepared: object
    _run: TurnRun | None
    _spent: list[Usage]

    @property
    def settings(self) -> Settings:
        raise NotImplementedError

    @property
    def streaming(self) -> bool:
        raise NotImplementedError

    def save(self) -> None:
        raise NotImplementedError

    def _build(self, instruction: str, files: Sequence[str],
               drop_note: str = "") -> BuiltRequest:
        raise NotImplementedError

    async def _compact_first(self, instruction: str, files: Sequence[str], built: BuiltRequest,
                             rebuilt: list[BuiltRequest]) -> AsyncIterator[SessionEvent]:
        """Compact before the turn; the request built again goes in ``rebuilt``."""
        compacting = CompactionRun(self.settings, self.root, self.history)
        async for event in self.compact_events(compacting, built.full_tokens, auto=True):
            yield event
        if compacting.stopped:  # Esc: the turn is not sent; nothing changed
            yield TurnCompleted("cancelled", "compaction cancelled", None, 0, None, 0, 0, 0.0)
            return
        note = DROP_NOTES["short" if compacting.result is not None else "failed"]
        try:
            rebuilt.append(self._build(instruction, files, note))
        except RequestError as exc:
            yield exc.failure()

    def _over_threshold(self, built: BuiltRequest) -> bool:
        """Compact first: the request passes ``compact_at``, or it would leave turns out."""
        limit = self.settings.compact_at * self.settings.input_budget
        dropping = built.history is not None and len(built.history) < len(self.history)
        return self.settings.auto_compact and bool(self.history) and (
            built.full_tokens > limit or dropping)

    def compact(self, focus: str = "") -> AsyncIterator[SessionEvent]:
        """``/compact [FOCUS]``: fold the older turns into one summary now."""
        if self.streaming:
            raise TurnInProgress("a turn is running: interrupt it or wait for it")
        run = CompactionRun(self.settings, self.root, self.history, focus)
        return self._saving(self.compact_events(run, self._measure(), auto=False))

    async def _saving(self, events: AsyncGenerator[SessionEvent, None],
                      ) -> AsyncIterator[SessionEvent]:
        try:
            async with aclosing(events):
                async for event in events:
                    yield event
        finally:
            self.save()

    async def compact_events(self, run: CompactionRun, before: int, *, auto: bool,
                             applied: Callable[[Compaction], int] | None = None,
                             ) -> AsyncGenerator[SessionEvent, None]:
        """``run``'s events; ``applied`` takes its result and gives the context's size after."""
        channel = self.channel
        if channel is None:
            raise RuntimeError("the session has no channel yet: attach one first")
        self._compacting, self._prepared = run, None  # built over the history before
        try:
            async for event in run.run(channel, before, auto=auto,
                                       applied=applied or self._apply):
                if type(event) is CompactionFinished and auto and event.usage is not None:
                    if self._run is not None:  # inside a turn's tool loop
                        self._run.meter.add(event.usage)
                    else:  # before a turn: it counts in that turn's usage
                        self._spent.append(event.usage)
                yield event
        finally:
            self._compacting = None

    def _apply(self, compaction: Compaction) -> int:
        self._fold(compaction)
        self.context_tokens = self._measure()
        return self.context_tokens

    def _fold(self, compaction: Compaction) -> None:
        """The summary stands for the history before ``covers`` (``turns`` keeps them)."""
        self.history[:] = [Message("user", compaction.summary),
                           *self.history[compaction.covers:]]

    async def _compact_turn(self, built: BuiltRequest,
                            tools: ToolLoop) -> AsyncIterator[SessionEvent]:
        """A long turn past ``compact_at``: what came before its latest tool round is folded."""
        settings, budget = self.settings, budget_of(self.settings)
        keep = tools.latest_round()
        if not settings.auto_compact or tools.used <= settings.compact_at * budget.cap or not keep:
            return

        def fold(compaction: Compaction) -> int:  # the history gets this turn at its end
            self._turn_compaction = compaction
            tools.fold(built.request, Message("user", compaction.summary), keep)
            return budget.tokens(tools.used)

        full = [*self.history, built.user_message, *tools.items]
        run = CompactionRun(settings, self.root, full, cut=len(self.history) + 1 + keep)
        async for event in self.compact_events(run, budget.tokens(tools.used), auto=True,
                                               applied=fold):
            yield event

    def _measure(self) -> int:
        """The context's size (server tokens): the fixed part as last sent, and the conversation."""
        fixed = 0
        if self.context is not None:
            parts = self.context.parts
            fixed = sum(v for k, v in parts.items() if k in ("instructions", "AGENTS.md",
                                                               "tools"))
        pieces = fixed + items_tokens(self.history)
        return budget_of(self.settings).tokens(pieces)
