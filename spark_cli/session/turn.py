"""One conversation with a model: run turns, apply edits as they stream, keep the history.

``Session(channel, root, settings)`` is what every front end drives (the TUI,
`spark edit`, the pipe filter). ``run_turn`` builds the request (checked before
anything is sent), streams the answer, feeds every ``TextDelta`` into the
streaming edit parser and applies each ``FileEdit`` the moment it closes, all
in one undo checkpoint per turn: edits land while the model is still talking.

An interrupted, cut-off or failed turn never half-applies a block: whatever
was still open when the stream ended is dropped and reported as
``BlockRejected`` (``TurnCompleted.dropped_blocks`` counts them). The
conversation keeps the assistant's (partial) text for the next turn, and the
next request tells the model which of its edits were refused and why.

Hot path: per delta the session appends the text to a list, stamps the clock
and feeds the parser; the answer is joined once, at the end.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from spark_cli.edits.apply import Applier
from spark_cli.edits.blocks import BlockRejected, FileEdit, ProseDelta
from spark_cli.edits.outcome import EditApplied
from spark_cli.protocol.channel import (
    Channel,
    ChannelError,
    Message,
    Queued,
    Reconnected,
    RequestSent,
    Steered,
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
)
from spark_cli.session.request import BuiltRequest, RequestError, build_request, text_sha256
from spark_cli.session.settings import Settings

_PASS_THROUGH = (Queued, WaitingToRetry, Reconnected, Steered)
_FEEDBACK_HEAD = "Results of your previous edits (these were NOT applied):\n"


class TurnInProgress(RuntimeError):
    """``run_turn`` was called while another turn of this session is still running."""


@dataclass(slots=True)
class _Stats:
    started: float
    sent_at: float | None = None
    first_at: float | None = None
    last_at: float | None = None
    usage: UsageReported | None = None
    applied: int = 0
    refused: int = 0
    dropped: int = 0


class Session:
    """One conversation in ``root`` over ``channel``; see the module docstring."""

    def __init__(self, channel: Channel, root: Path, settings: Settings, *,
                 dry_run: bool = False) -> None:
        self.channel = channel
        self.root = Path(root)
        self.settings = settings
        self.dry_run = dry_run
        self.history: list[Message] = []
        """The conversation so far (user messages incl. file blocks, assistant answers)."""
        self.seen: dict[str, str] = {}
        """path -> the text the model last saw (its own edits included), for conflicts."""
        self._sent: dict[str, str] = {}  # path -> sha256 of what the model has
        self._feedback: list[str] = []  # refusals to report in the next request
        self._running = False
        self._interrupted = False

    @property
    def running(self) -> bool:
        return self._running

    async def interrupt(self) -> None:
        """Stop the running turn now (edits already applied stay; open blocks are dropped)."""
        if not self._running:
            return
        self._interrupted = True
        await self.channel.stop()

    async def steer(self, text: str) -> bool:
        """Redirect the running turn in-band if the channel can; False if it cannot.

        Front ends fall back to ``interrupt`` + a new turn that carries the
        partial answer (kept in ``history``) and the new direction.
        """
        if not self._running or not self.channel.capabilities.steer:
            return False
        await self.channel.steer(text)
        self.history.append(Message("user", text))
        return True

    async def run_turn(self, instruction: str,
                       files: Sequence[str]) -> AsyncIterator[SessionEvent]:
        """Run one turn; yields session events and ends with TurnCompleted or TurnFailed."""
        if self._running:
            raise TurnInProgress("a turn is already running; interrupt it or wait")
        self._running, self._interrupted = True, False
        try:
            async for event in self._turn(instruction, files):
                yield event
        finally:
            self._running = False

    # -- the turn -------------------------------------------------------------------
    def _build(self, instruction: str, files: Sequence[str]) -> BuiltRequest:
        if self._feedback:
            lines = "".join(f"- {note}\n" for note in self._feedback)
            instruction = f"{_FEEDBACK_HEAD}{lines}\n{instruction}"
        return build_request(self.settings, self.root, files, instruction,
                             history=self.history, already_sent=self._sent)

    async def _turn(self, instruction: str,
                    files: Sequence[str]) -> AsyncIterator[SessionEvent]:
        try:
            built = self._build(instruction, files)
        except RequestError as exc:
            yield TurnFailed(exc.kind, exc.message)  # type: ignore[arg-type]
            return
        self._feedback.clear()
        for target in built.targets:
            self.seen[target.path] = target.text
            self._sent[target.path] = target.sha256
        applier = Applier(self.root, seen=self.seen,
                          allow_syntax_errors=self.settings.allow_syntax_errors,
                          dry_run=self.dry_run)
        applier.begin_batch(instruction.strip().splitlines()[0][:80] if instruction.strip()
                            else "spark turn")
        from spark_cli.edits.stream_parser import EditStreamParser

        parser = EditStreamParser()
        parts: list[str] = []
        stats = _Stats(started=time.perf_counter())
        finished: TurnFinished | None = None
        failure: ChannelError | None = None
        try:
            try:
                clock = time.perf_counter
                feed = parser.feed
                async for event in self.channel.stream(built.request):
                    if type(event) is TextDelta:
                        now = clock()
                        if stats.first_at is None:
                            stats.first_at = now
                        stats.last_at = now
                        parts.append(event.text)
                        items = feed(event.text)
                        if items:
                            for item in items:
                                yield self._handle(item, applier, stats)
                    elif isinstance(event, TurnFinished):
                        finished = event
                    elif isinstance(event, RequestSent):
                        stats.sent_at = event.at
                    elif isinstance(event, UsageReported):
                        stats.usage = event
                        yield event
                    elif isinstance(event, _PASS_THROUGH):
                        yield event
            except ChannelError as exc:
                failure = exc
            completed = finished is not None and finished.status == "completed"
            for item in parser.close():
                if not completed and isinstance(item, FileEdit | BlockRejected):
                    stats.dropped += 1  # still open when the stream ended: never applied
                    yield BlockRejected(
                        f"{item.path or 'an edit block'}: the answer ended before this block "
                        "was finished; it was dropped, nothing of it was written",
                        item.line, item.path, getattr(item, "raw", ""))
                    continue
                yield self._handle(item, applier, stats)
            yield self._final(finished, failure, stats, parts)
        finally:
            applier.end_batch()
            self._remember(built, applier, parts)

    def _handle(self, item: object, applier: Applier, stats: _Stats) -> SessionEvent:
        if isinstance(item, FileEdit):
            outcome = applier.apply(item)
            if isinstance(outcome, EditApplied):
                stats.applied += 1
                if outcome.partial:
                    stats.refused += 1
                    self._feedback.append(outcome.message)
                return EditLanded(outcome)
            stats.refused += 1
            self._feedback.append(outcome.message)
            return EditRefused(outcome)
        if isinstance(item, BlockRejected):
            stats.refused += 1
            self._feedback.append(item.message)
            return item
        assert isinstance(item, ProseDelta)
        return item

    def _final(self, finished: TurnFinished | None, failure: ChannelError | None,
               stats: _Stats, parts: list[str]) -> SessionEvent:
        if failure is not None:
            return TurnFailed(failure.kind, failure.message, stats.applied, stats.refused)
        if finished is None:
            return TurnFailed("protocol", "the stream ended without a final status; edits that "
                              "landed stay, the open block was dropped",
                              stats.applied, stats.refused)
        if finished.status == "failed":
            return TurnFailed("server", finished.reason or "the provider failed the response",
                              stats.applied, stats.refused)
        end = time.perf_counter()
        sent = stats.sent_at if stats.sent_at is not None else stats.started
        ttft = stats.first_at - sent if stats.first_at is not None else None
        if stats.usage is not None and stats.usage.output_tokens:
            tokens = stats.usage.output_tokens
        else:
            tokens = count_tokens("".join(parts)) if parts else 0
        rate = None
        if stats.first_at is not None and stats.last_at is not None:
            span = stats.last_at - stats.first_at
            if span > 0 and tokens:
                rate = tokens / span
        reason = finished.reason
        if finished.status == "cancelled" and self._interrupted:
            reason = "interrupted"
        return TurnCompleted(finished.status, reason, ttft, tokens, rate, stats.applied,
                             stats.refused, end - stats.started, stats.dropped)

    def _remember(self, built: BuiltRequest, applier: Applier, parts: list[str]) -> None:
        """The turn joins the conversation, partial answer included."""
        self.history.append(built.user_message)
        answer = "".join(parts)
        if answer:
            self.history.append(Message("assistant", answer))
        if applier.seen is not None:
            for path in [p for p in self.seen if p not in applier.seen]:
                self.seen.pop(path, None)
                self._sent.pop(path, None)
            for path, text in applier.seen.items():
                if self.seen.get(path) != text:
                    self.seen[path] = text
                    self._sent[path] = text_sha256(text)
