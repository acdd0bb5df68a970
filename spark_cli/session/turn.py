"""One running turn: stream the answer, apply each edit block the moment it closes, sum it up.

:class:`TurnRun` feeds every ``TextDelta`` to the streaming edit parser and applies each
closed block at once (one undo checkpoint per turn), so edits land while the model talks.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING

from spark_cli.edits.model.blocks import BlockRejected, FileEdit, ParsedItem
from spark_cli.edits.model.outcome import EditApplied
from spark_cli.protocol.channel import (
    Channel,
    ChannelError,
    ChannelEvent,
    ConversationItem,
    Message,
    RequestSent,
    ResponseStarted,
    SteerAccepted,
    Steered,
    SteerRejected,
    TextDelta,
    ToolCallCompleted,
    ToolCallOpened,
    TurnFinished,
    TurnRequest,
    UsageReported,
)
from spark_cli.protocol.tokens import count_tokens
from spark_cli.session.events import (
    EditLanded,
    EditRefused,
    SessionEvent,
    TurnCompleted,
    TurnFailed,
    TurnOutcome,
)
from spark_cli.session.failures import explain
from spark_cli.session.lazy_applier import LazyApplier
from spark_cli.session.marks import TurnMarks
from spark_cli.session.spend.limits import NO_LIMITS, Limits
from spark_cli.session.spend.usage import UsageMeter
from spark_cli.session.steers import SteerLog

if TYPE_CHECKING:
    from spark_cli.edits.formats.stream_parser import EditStreamParser
    from spark_cli.session.config.pricing import Price
    from spark_cli.session.config.settings import ProviderSettings
    from spark_cli.session.tool_loop import ToolLoop


class TurnRun:
    """The state of one turn while it streams, and what it came to.

    A turn may be several responses (tool calls, then the next request); each gets its own edit
    parser so no half block leaks into the next. Once ``stopped`` is set nothing more is applied."""

    def __init__(self, request: TurnRequest, applier: LazyApplier, steers: SteerLog,
                 feedback: list[str], *, provider: ProviderSettings,
                 stopped: Callable[[], bool], tools: ToolLoop | None = None,
                 price: Price | None = None, limits: Limits = NO_LIMITS,
                 input_estimate: int = 0,
                 compact: Callable[[ToolLoop], AsyncIterator[SessionEvent]] | None = None,
                 ) -> None:
        self.started = time.perf_counter()
        self.request = request
        self.applier = applier
        self.steers = steers
        self.feedback = feedback
        """Refusals the model is told about next turn (the session's list, appended to)."""
        self.provider = provider
        self.stopped = stopped
        """True once the user interrupted: no text after that lands."""
        self.marks = TurnMarks()
        self.parts: list[str] = []
        self.parser: EditStreamParser | None = None  # made once the request has left
        self.usage: UsageReported | None = None
        self.finished: TurnFinished | None = None
        self.failure: ChannelError | None = None
        self.dropped = 0
        self.tools = tools
        """The turn's tool loop (None: the request declares no tools)."""
        self.compact = compact
        """Before each follow-up: compacts the conversation when a long turn needs it."""
        self.responding = False
        """A response is streaming (not the tools running between two)."""
        self.cut: tuple[TurnOutcome, str | None] | None = None
        """The status and reason when the tool loop ended the turn early."""
        self.limits = limits
        self.meter = UsageMeter(request.model, price)
        """The turn's tokens, summed per response (counted where a server reported none)."""
        self._estimate = input_estimate  # the first request's size in spark's tokens
        self._start = 0  # index into ``parts`` where the current response's text starts
        self._responses = 0
        self._usage_seen = False  # the current response reported its usage
        self._calls_done_at: float | None = None  # the last call of a response completed
        self._calls_done_cpu = 0.0  # the process's CPU time then

    # ---- streaming ----

    async def stream(self, channel: Channel) -> AsyncIterator[SessionEvent]:
        """The whole turn as session events: each response streamed, tool calls run in between."""
        request = self.request
        tools = self.tools
        while True:
            async for event in self._respond(channel, request):
                yield event
            if tools is None or not tools.pending:
                return
            if self.stopped():
                self.cut = ("cancelled", None)
                return  # the calls stay unanswered: ``conversation`` settles them
            if self.failure is not None or self.status != "completed":
                return  # as above: answered "not run"
            if self.limits.max_requests is not None \
                    and self._responses >= self.limits.max_requests:
                self.cut = ("incomplete", "max_turns")
                return  # as above: answered "not run"
            for event in self.close():
                yield event
            said = self.steers.conversation(self.parts, "", self._start)
            self._start = len(self.parts)
            async for event in tools.answer(said, self.stopped):
                yield event
            if self.stopped():
                self.cut = ("cancelled", None)
                return
            if tools.budget_spent:
                self.cut = ("incomplete", "max_tool_calls")
                return
            if self.compact is not None:
                async for event in self.compact(tools):
                    yield event
                if self.stopped():  # Esc during the compaction: nothing more is sent
                    self.cut = ("cancelled", None)
                    return
            self.finished = None
            request = self.limits.timed(tools.follow_up(self.request))

    async def _respond(self, channel: Channel,
                       request: TurnRequest) -> AsyncIterator[SessionEvent]:
        parts = self.parts
        clock = time.perf_counter
        marks = self.marks
        self._responses += 1
        self.meter.requests += 1
        first = len(parts)
        estimate = self.tools.used if self.tools is not None and self._responses > 1 \
            else self._estimate
        self.responding = True
        self._usage_seen = False
        stream = channel.stream(request)
        async with contextlib.aclosing(stream):
            try:
                async for event in stream:
                    if type(event) is TextDelta:
                        if self.stopped():
                            break  # interrupted: nothing that arrives after Esc lands
                        marks.last_delta_at = clock()
                        if marks.first_delta_at is None:
                            marks.first_delta_at = marks.last_delta_at
                            if marks.first_output_at is None:
                                marks.first_output_at = marks.last_delta_at
                        text = event.text
                        parts.append(text)
                        marks.chars += len(text)
                        parser = self.parser or self._parser()
                        for item in parser.feed(text):
                            yield self.handle(item)
                    else:
                        passed = self._control(event)
                        if passed is not None:
                            yield passed
                        if type(event) is RequestSent:
                            # the request has left: load these while the model thinks
                            self._parser()
                            self.applier.get()
                            self.applier.prime()
                            if self.tools is not None:
                                self.tools.prime()
            except ChannelError as exc:
                self.failure = exc
        self.responding = False
        if not self._usage_seen:
            self.meter.guessed(estimate, count_tokens("".join(parts[first:])))
        marks.stream_ended_at = clock()

    def _control(self, event: ChannelEvent) -> SessionEvent | None:
        """Every channel event but text: note it; the event when a front end shows it."""
        match event:
            case TurnFinished():
                self.finished = event
                return None
            case ToolCallCompleted(call=call):
                if self.tools is not None:
                    self.tools.collect(call)
                    self._calls_done_at = time.perf_counter()
                    self._calls_done_cpu = time.process_time()
                return None
            case ToolCallOpened():
                if self.marks.first_output_at is None:
                    self.marks.first_output_at = time.perf_counter()
                return None
            case ResponseStarted() | TextDelta():  # text is ``_respond``'s
                return None
            case RequestSent(at=at):
                if self._responses == 1:
                    if self.marks.request_sent_at is None:  # TTFT counts from the first attempt
                        self.marks.request_sent_at = at
                elif self._calls_done_at is not None:  # a follow-up: one tool round trip
                    self.marks.round_trips.append(at - self._calls_done_at)
                    self.marks.round_trip_cpu.append(time.process_time() - self._calls_done_cpu)
                    self._calls_done_at = None
            case UsageReported():
                self.usage = event
                self.meter.reported(event.input_tokens, event.cached_tokens,
                                    event.output_tokens)
                self._usage_seen = True
            case Steered():
                self.steers.committed(len(self.parts))
            case SteerAccepted():
                self.steers.accepted()
            case SteerRejected():
                self.steers.rejected()
        return event  # Queued, WaitingToRetry, Reconnected too

    def handle(self, item: ParsedItem) -> SessionEvent:
        """A parsed item as a session event; an edit is applied first."""
        if isinstance(item, FileEdit):
            outcome = self.applier.get().apply(item)
            if isinstance(outcome, EditApplied):
                if outcome.partial:
                    self.feedback.append(outcome.message)
                return EditLanded(outcome)
            self.feedback.append(outcome.message)
            return EditRefused(outcome)
        if isinstance(item, BlockRejected):
            self.feedback.append(item.message)
        return item

    def close(self) -> Iterator[SessionEvent]:
        """What the parser still held: applied after a clean end, else dropped."""
        parser, self.parser = self.parser, None
        if parser is None:
            return
        clean = self.failure is None and self.status == "completed"
        for item in parser.close():
            if not clean and isinstance(item, FileEdit | BlockRejected):
                self.dropped += 1
                if isinstance(item, FileEdit):
                    yield BlockRejected(f"{item.path}: the answer ended ({self._why()}) before "
                                        "this block was finished; it was dropped, nothing of it "
                                        "was written", item.line, item.path, "")
                    continue
            yield self.handle(item)

    # ---- the end ----

    def conversation(self, note: str) -> list[ConversationItem]:
        """What the turn adds after the user's message: tool items, the last text, unrun calls."""
        said = self.steers.conversation(self.parts, "", self._start)
        tools = self.tools
        if tools is not None and tools.pending:
            if said[-1].content:
                said[-1] = Message("assistant", said[-1].content + note)
            tools.settle(said)
            return tools.sealed()
        items = tools.sealed() if tools is not None else []
        if said[-1].content or len(said) > 1:
            said[-1] = Message("assistant", said[-1].content + note)
            items.extend(said)
        return items

    @property
    def status(self) -> str:
        if self.finished is not None:
            return self.finished.status
        return "cancelled" if self.stopped() else "failed"

    def result(self) -> TurnCompleted | TurnFailed:
        """The turn's one final event."""
        applied = sum(1 for o in self.applier.outcomes if o.ok)
        refused = self.applier.refused_count
        finished = self.finished
        if self.failure is not None:
            kind, message = self.failure.kind, self.failure.message
            return TurnFailed(kind, explain(kind, message, self.provider), applied, refused,
                              self.meter.usage())
        if finished is None and not self.stopped():
            return TurnFailed("protocol", "the stream ended without a final status; edits that "
                              "landed stay, an open block was dropped", applied, refused,
                              self.meter.usage())
        if finished is not None and finished.status == "failed":
            return TurnFailed("server", finished.reason or "the provider failed the response",
                              applied, refused, self.meter.usage())
        return self._completed(applied, refused)

    def _completed(self, applied: int, refused: int) -> TurnCompleted:
        marks, reported, finished = self.marks, self.usage, self.finished
        usage = self.meter.usage()
        output_tokens = usage.output_tokens
        first, last, sent = marks.first_delta_at, marks.last_delta_at, marks.request_sent_at
        tool_time = sum(marks.round_trips)
        if self._calls_done_at is not None:  # stopped before the follow-up: the calls' time
            tool_time += time.perf_counter() - self._calls_done_at
        span = (last - first) if first is not None and last is not None else 0.0
        if span > tool_time:
            span -= tool_time
        status, reason = self.cut or ((finished.status, finished.reason) if finished is not None
                                      else ("cancelled", None))
        if status == "cancelled" and self.stopped():
            reason = reason or "interrupted"
        output = marks.first_output_at
        return TurnCompleted(
            status=status,
            reason=reason,
            ttft_s=(output - sent) if output is not None and sent is not None else None,
            output_tokens=output_tokens,
            tokens_per_s=(output_tokens / span) if span > 0 else None,
            applied=applied,
            refused=refused,
            duration_s=time.perf_counter() - self.started,
            dropped_blocks=self.dropped,
            time_info=reported.time_info if reported is not None else None,
            tool_calls=self.tools.count if self.tools is not None else 0,
            tool_time_s=tool_time,
            usage=usage,
        )

    def _why(self) -> str:
        if self.failure is not None:
            return f"{self.failure.kind}: {self.failure.message}"
        status = self.status
        return {"cancelled": "interrupted", "incomplete": "cut off"}.get(status, status)

    def _parser(self) -> EditStreamParser:
        """The streaming edit parser, imported once the request has left (it overlaps TTFT)."""
        if self.parser is None:
            # deferred: launch -> request
            from spark_cli.edits.formats.stream_parser import EditStreamParser

            self.parser = EditStreamParser()
        return self.parser
