"""One running turn: stream the answer, apply each edit block the moment it closes, sum it up.

:class:`TurnRun` is made by ``Session.run_turn`` for one built request. It
feeds every ``TextDelta`` into the streaming edit parser and applies each
completed ``FileEdit`` at once (one undo checkpoint per turn), so edits land
on disk while the model is still talking; it passes through the channel
events a front end shows (waits, queueing, steering, usage) and ends with one
``TurnCompleted`` or ``TurnFailed``.

An interrupted, cut-off or failed answer never half-applies a block: whatever
was still open when the stream ended is dropped and reported as a
``BlockRejected``. Once ``stopped`` is set no further text is parsed or
applied, even if the channel is slow to stop: the stream is closed at the next
delta.

Hot path: per delta one type check, one ``perf_counter()`` (the turn's only
delta stamp: ``marks``, TTFT and tok/s all use it), the list append, the parser
feed and a yield per parsed item; the text is joined once at the end.
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
    Queued,
    Reconnected,
    RequestSent,
    SteerAccepted,
    Steered,
    SteerRejected,
    TextDelta,
    TurnFinished,
    UsageReported,
    WaitingToRetry,
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
from spark_cli.session.steers import SteerLog

if TYPE_CHECKING:
    from spark_cli.edits.formats.stream_parser import EditStreamParser
    from spark_cli.protocol.channel import TurnRequest
    from spark_cli.session.config.settings import ProviderSettings


class TurnRun:
    """The state of one turn while it streams, and what it came to."""

    def __init__(self, request: TurnRequest, applier: LazyApplier, steers: SteerLog,
                 feedback: list[str], *, provider: ProviderSettings,
                 stopped: Callable[[], bool]) -> None:
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

    # ---- streaming ----

    async def stream(self, channel: Channel) -> AsyncIterator[SessionEvent]:
        """The channel's stream turned into session events (edits applied as they close)."""
        parts = self.parts
        clock = time.perf_counter
        marks = self.marks
        stream = channel.stream(self.request)
        async with contextlib.aclosing(stream):
            try:
                async for event in stream:
                    if type(event) is TextDelta:
                        if self.stopped():
                            break  # interrupted: nothing that arrives after Esc lands
                        marks.last_delta_at = clock()
                        if marks.first_delta_at is None:
                            marks.first_delta_at = marks.last_delta_at
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
            except ChannelError as exc:
                self.failure = exc
        marks.stream_ended_at = clock()

    def _control(self, event: ChannelEvent) -> SessionEvent | None:
        """Every channel event but text: note it, and what a front end sees of it."""
        match event:
            case TurnFinished():
                self.finished = event
            case RequestSent(at=at):
                if self.marks.request_sent_at is None:  # TTFT counts from the first attempt
                    self.marks.request_sent_at = at
                return event
            case UsageReported():
                self.usage = event
                return event
            case Steered():
                self.steers.committed(len(self.parts))
                return event
            case SteerAccepted():
                self.steers.accepted()
                return event
            case SteerRejected():
                self.steers.rejected()
                return event
            case Queued() | WaitingToRetry() | Reconnected():
                return event
        return None  # ResponseStarted: nothing to show

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
        if self.parser is None:
            return
        clean = self.failure is None and self.status == "completed"
        for item in self.parser.close():
            if isinstance(item, FileEdit) and not clean:
                self.dropped += 1
                yield BlockRejected(
                    f"{item.path}: the answer ended ({self._why()}) before this block was "
                    "finished; it was dropped, nothing of it was written", item.line, item.path, "")
                continue
            if isinstance(item, BlockRejected) and not clean:
                self.dropped += 1
            yield self.handle(item)

    # ---- the end ----

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
            return TurnFailed(kind, explain(kind, message, self.provider), applied, refused)
        if finished is None and not self.stopped():
            return TurnFailed("protocol", "the stream ended without a final status; edits that "
                              "landed stay, an open block was dropped", applied, refused)
        if finished is not None and finished.status == "failed":
            return TurnFailed("server", finished.reason or "the provider failed the response",
                              applied, refused)
        return self._completed(applied, refused)

    def _completed(self, applied: int, refused: int) -> TurnCompleted:
        marks, usage, finished = self.marks, self.usage, self.finished
        output_tokens = (usage.output_tokens if usage is not None
                         else count_tokens("".join(self.parts)))
        first, last, sent = marks.first_delta_at, marks.last_delta_at, marks.request_sent_at
        span = (last - first) if first is not None and last is not None else 0.0
        status: TurnOutcome = finished.status if finished is not None else "cancelled"
        reason = finished.reason if finished is not None else None
        if status == "cancelled" and self.stopped():
            reason = reason or "interrupted"
        return TurnCompleted(
            status=status,
            reason=reason,
            ttft_s=(first - sent) if first is not None and sent is not None else None,
            output_tokens=output_tokens,
            tokens_per_s=(output_tokens / span) if span > 0 else None,
            applied=applied,
            refused=refused,
            duration_s=time.perf_counter() - self.started,
            dropped_blocks=self.dropped,
            time_info=usage.time_info if usage is not None else None,
        )

    def _why(self) -> str:
        if self.failure is not None:
            return f"{self.failure.kind}: {self.failure.message}"
        status = self.status
        return {"cancelled": "interrupted", "incomplete": "cut off"}.get(status, status)

    def _parser(self) -> EditStreamParser:
        """The streaming edit parser; imported (~8 ms) once the request has left, so the
        import overlaps the model's TTFT instead of delaying launch -> request."""
        if self.parser is None:
            from spark_cli.edits.formats.stream_parser import EditStreamParser

            self.parser = EditStreamParser()
        return self.parser
