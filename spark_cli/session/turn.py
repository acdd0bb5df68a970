"""Running turns: stream the answer, apply each edit block the moment it closes, keep the talk.

``Session(channel, root, settings)`` holds one conversation. ``run_turn``
builds the request (``spark_cli.session.request``; a problem there is a
``TurnFailed`` and nothing is sent), streams it through the channel, feeds
every ``TextDelta`` into the streaming edit parser and applies each completed
``FileEdit`` at once (one undo checkpoint per turn), so edits land on disk
while the model is still talking.

``prepare()`` builds the next turn's request ahead, before any channel exists
(the channel may be set later): a one-shot front end checks the request (the
window budget, binary files) before it starts an engine or connects.

An interrupted, cut-off or failed answer never half-applies a block: whatever
was still open when the stream ended is dropped and reported as a
``BlockRejected``. The assistant's text (partial too) joins the conversation,
so the next turn continues from it.

After ``interrupt()`` no further text is parsed or applied, even if the
channel is slow to stop: the stream is closed at the next delta.

Hot path: per delta one type check, one ``perf_counter()`` (the turn's only
delta stamp: ``marks``, TTFT and tok/s all use it), the list append, the parser
feed and a yield per parsed item; the text is joined once at the end.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from spark_cli.edits.model.blocks import BlockRejected, FileEdit, ParsedItem, ProseDelta
from spark_cli.edits.model.outcome import EditApplied
from spark_cli.protocol.channel import (
    Channel,
    ChannelError,
    Message,
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
)
from spark_cli.session.failures import explain
from spark_cli.session.lazy_applier import LazyApplier
from spark_cli.session.marks import TurnMarks
from spark_cli.session.request import BuiltRequest, RequestError, build_request
from spark_cli.session.settings import Settings
from spark_cli.session.steers import SteerLog

if TYPE_CHECKING:
    from spark_cli.edits.formats.stream_parser import EditStreamParser

_PASS_THROUGH = (Queued, WaitingToRetry, Reconnected, Steered, SteerAccepted, SteerRejected,
                 UsageReported)
INTERRUPTED_NOTE = "\n\n[interrupted by the user]"
FEEDBACK_HEAD = "These edits from your previous answer were NOT applied:\n"


class TurnInProgress(RuntimeError):
    """``run_turn`` was called while another turn of the same session is still running."""


class Session:
    """One conversation with a model over ``channel``, editing files under ``root``."""

    def __init__(self, channel: Channel | None, root: Path, settings: Settings, *,
                 dry_run: bool = False) -> None:
        self.channel = channel
        """May be set later (after ``prepare``); ``run_turn`` needs it."""
        self.root = Path(root).resolve()
        self.settings = settings
        self.dry_run = dry_run
        self.history: list[Message] = []
        """The conversation so far (user messages with their file blocks, answers)."""
        self.seen: dict[str, str] = {}
        """path -> the text the model last saw (the conflict check's baseline)."""
        self._sent: dict[str, str] = {}  # path -> sha256 of the content last sent
        self._feedback: list[str] = []  # refusals to tell the model about next turn
        self._stop = False
        self._streaming = False
        self._steers = SteerLog()
        self._prepared: tuple[str, tuple[str, ...], int, BuiltRequest] | None = None
        self.marks = TurnMarks()
        """The latest turn's latency marks (set as the turn runs)."""

    @property
    def streaming(self) -> bool:
        return self._streaming

    async def interrupt(self) -> None:
        """Stop the running turn now (it ends with ``TurnCompleted(status="cancelled")``)."""
        if not self._streaming or self.channel is None:
            return
        self._stop = True
        await self.channel.stop()

    async def steer(self, text: str) -> bool:
        """Redirect the running turn in-band when the channel can; False when it cannot.

        Without in-band steering a front end interrupts and starts a new turn: the
        partial answer is already in ``history``.
        """
        if not self._streaming or self.channel is None or not self.channel.capabilities.steer:
            return False
        await self.channel.steer(text)
        self._steers.asked(text)
        return True

    def prepare(self, instruction: str, files: Sequence[str]) -> TurnFailed | None:
        """Build the next turn's request now (no channel needed); its failure, if any.

        ``run_turn`` with the same instruction and files right after uses it, so
        a request that cannot be sent is found before an engine is started or a
        connection opened.
        """
        try:
            built = self._build(instruction, files)
        except RequestError as exc:
            self._prepared = None
            return TurnFailed(exc.kind, exc.message)  # type: ignore[arg-type]
        self._prepared = (instruction, tuple(files), len(self.history), built)
        return None

    def _build(self, instruction: str, files: Sequence[str]) -> BuiltRequest:
        asked = instruction
        if self._feedback:
            notes = "".join(f"- {note}\n" for note in self._feedback)
            asked = f"{FEEDBACK_HEAD}{notes}\n{instruction}"
        return build_request(self.settings, self.root, files, asked,
                             history=tuple(self.history), already_sent=self._sent)

    async def run_turn(self, instruction: str,
                       files: Sequence[str]) -> AsyncIterator[SessionEvent]:
        """Run one turn; yields session events and ends with TurnCompleted or TurnFailed."""
        if self._streaming:
            raise TurnInProgress("a turn is already running: interrupt it or wait for it")
        channel = self.channel
        if channel is None:
            raise RuntimeError("the session has no channel yet: set session.channel first")
        started = time.perf_counter()
        prepared, self._prepared = self._prepared, None
        if prepared is not None and prepared[:3] == (instruction, tuple(files),
                                                     len(self.history)):
            built = prepared[3]
        else:
            try:
                built = self._build(instruction, files)
            except RequestError as exc:
                yield TurnFailed(exc.kind, exc.message)  # type: ignore[arg-type]
                return
        self._feedback.clear()
        self._steers = SteerLog()
        for target in built.targets:
            if target.path in built.sent:
                self.seen[target.path] = target.text
        applier = LazyApplier(
            self.root, self.seen, instruction.strip().splitlines()[0][:80]
            if instruction.strip() else "spark turn",
            allow_syntax_errors=self.settings.allow_syntax_errors, dry_run=self.dry_run)
        marks = self.marks = TurnMarks()
        parser: EditStreamParser | None = None  # made once the request has left (see _parser)
        parts: list[str] = []
        sent_at = first_at = last_at = None
        usage: UsageReported | None = None
        finished: TurnFinished | None = None
        failure: ChannelError | None = None
        dropped = 0
        self._stop = False
        self._streaming = True
        clock = time.perf_counter
        try:
            stream = channel.stream(built.request)
            async with contextlib.aclosing(stream):  # type: ignore[type-var]
                try:
                    async for event in stream:
                        kind = type(event)
                        if kind is TextDelta:
                            if self._stop:
                                break  # interrupted: nothing that arrives after Esc lands
                            last_at = clock()
                            if first_at is None:
                                first_at = last_at
                            text = event.text  # type: ignore[union-attr]
                            parts.append(text)
                            if parser is None:
                                parser = _parser()
                            for item in parser.feed(text):
                                yield self._handle(item, applier)
                        elif kind is TurnFinished:
                            finished = event  # type: ignore[assignment]
                        elif kind is RequestSent:
                            sent_at = marks.request_sent_at = event.at  # type: ignore[union-attr]
                            yield event  # type: ignore[misc]
                            # the request has left: load these while the model thinks
                            parser = parser or _parser()
                            applier.get()
                        elif kind in _PASS_THROUGH:
                            if kind is UsageReported:
                                usage = event  # type: ignore[assignment]
                            elif kind is Steered:
                                self._steers.committed(len(parts))
                            elif kind is SteerAccepted:
                                self._steers.accepted()
                            elif kind is SteerRejected:
                                self._steers.rejected()
                            yield event  # type: ignore[misc]
                except ChannelError as exc:
                    failure = exc
            marks.stream_ended_at = clock()
            status = finished.status if finished is not None else (
                "cancelled" if self._stop else "failed")
            clean = failure is None and status == "completed"
            for item in parser.close() if parser is not None else ():
                if isinstance(item, FileEdit) and not clean:
                    dropped += 1
                    yield BlockRejected(
                        f"{item.path}: the answer ended ({_why(status, failure)}) before this "
                        "block was finished; it was dropped, nothing of it was written",
                        item.line, item.path, "")
                    continue
                if isinstance(item, BlockRejected) and not clean:
                    dropped += 1
                yield self._handle(item, applier)
        finally:
            self._streaming = False
            applier.end()
            self._remember(built, parts, applier.seen, cancelled=self._stop)
        applied = sum(1 for o in applier.outcomes if o.ok)
        refused = applier.refused_count
        marks.first_delta_at, marks.last_delta_at = first_at, last_at
        if failure is not None:
            yield TurnFailed(failure.kind, explain(failure.kind, failure.message,
                                                   self.settings.provider), applied, refused)
            return
        if finished is None and not self._stop:
            yield TurnFailed("protocol", "the stream ended without a final status; edits that "
                             "landed stay, an open block was dropped", applied, refused)
            return
        if status == "failed":
            yield TurnFailed("server", (finished.reason if finished else None)
                             or "the provider failed the response", applied, refused)
            return
        output_tokens = usage.output_tokens if usage is not None else count_tokens("".join(parts))
        span = (last_at - first_at) if first_at is not None and last_at is not None else 0.0
        reason = finished.reason if finished is not None else None
        if status == "cancelled" and self._stop:
            reason = reason or "interrupted"
        yield TurnCompleted(
            status=status,
            reason=reason,
            ttft_s=(first_at - sent_at) if first_at is not None and sent_at is not None else None,
            output_tokens=output_tokens,
            tokens_per_s=(output_tokens / span) if span > 0 else None,
            applied=applied,
            refused=refused,
            duration_s=time.perf_counter() - started,
            dropped_blocks=dropped,
            time_info=usage.time_info if usage is not None else None,
        )

    # ---- internals ----

    def _handle(self, item: ParsedItem, applier: LazyApplier) -> SessionEvent:
        if isinstance(item, FileEdit):
            outcome = applier.get().apply(item)
            if isinstance(outcome, EditApplied):
                if outcome.partial:
                    self._feedback.append(outcome.message)
                return EditLanded(outcome)
            self._feedback.append(outcome.message)
            return EditRefused(outcome)
        if isinstance(item, BlockRejected):
            self._feedback.append(item.message)
            return item
        assert isinstance(item, ProseDelta)
        return item

    def _remember(self, built: BuiltRequest, parts: list[str], seen: dict[str, str] | None, *,
                  cancelled: bool) -> None:
        """Keep the conversation (incl. a partial answer) and what the model now knows."""
        if seen is not None:
            self.seen = dict(seen)  # our own writes are not the user's changes
        if not parts:
            return  # nothing came back: the next turn sends this request again
        self.history.append(built.user_message)
        self.history.extend(self._steers.conversation(parts, INTERRUPTED_NOTE if cancelled else ""))
        for target in built.targets:
            if target.path in built.sent:
                self._sent[target.path] = target.sha256


def _why(status: str, failure: ChannelError | None) -> str:
    if failure is not None:
        return f"{failure.kind}: {failure.message}"
    return {"cancelled": "interrupted", "incomplete": "cut off"}.get(status, status)


def _parser() -> EditStreamParser:
    """The turn's streaming edit parser; imported (~8 ms) once the request has left, so
    the import overlaps the model's TTFT instead of delaying launch -> request."""
    from spark_cli.edits.formats.stream_parser import EditStreamParser

    return EditStreamParser()
