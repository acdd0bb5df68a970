"""What one response's read loop decides, without a socket (sans-I/O): for both wires.

A channel's read loop (the WebSocket's :mod:`.ws.websocket`, the SSE's
:mod:`.sse.http_stream`) only moves bytes and hands whatever happened (an event, silence,
the socket closing, a bad frame, a provider error) to a :class:`ReadMachine`, which
answers with what to do. Stop, cancel, steer, queue and prefill rules live there, tested
value in, value out, as websockets keeps its connection state in a sans-I/O ``Protocol``.
Both loops hand up the text already received as one delta (:func:`merged`; `spark bench
stream` measures it, docs/benchmarks.md ``## Stream``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Generic, Protocol, TypeVar

from spark_cli.protocol.channel import (
    ChannelError,
    ChannelEvent,
    Queued,
    TextDelta,
    ToolCallCompleted,
    ToolCallOpened,
    TurnFinished,
    TurnRequest,
    UsageReported,
)
from spark_cli.record import record
from spark_cli.transport.errors import output_so_far
from spark_cli.transport.silence import (
    first_token_limit,
    prefill_timeout,
    prompt_tokens,
    stall_error,
)

_OUTPUT = frozenset({TextDelta, ToolCallOpened, ToolCallCompleted})
"""What a stopping response swallows: its output."""


class Fold(Protocol):
    """A wire's fold (Responses events, Chat chunks): what the machine reads of it."""

    deltas: int
    """Output pieces seen: text deltas and calls started (0: a retry is safe)."""
    finished: TurnFinished | None
    usage: UsageReported | None
    response_id: str | None
    tentative: TurnFinished | None
    """How the turn ends if the successor an accepted steer promised never comes."""
    more: tuple[ChannelEvent, ...]
    """Events the last ``feed`` made after the one it returned, in order; ``()`` otherwise
    (the machine takes them)."""

    @property
    def chars(self) -> int:
        """Characters of output so far (for honest error messages)."""
        ...


@record
class Decision:
    """What the read loop does next, in this order: drop, note the chain, yield ``emit``,
    then raise ``error`` or return when ``done``."""

    emit: tuple[ChannelEvent, ...] = ()
    done: bool = False
    """The response is over: return after ``emit``."""
    drop: str | None = None
    """Close the connection (its server state is lost), for this reason."""
    error: ChannelError | None = None
    """Raise this (after the drop)."""
    remember: bool = False
    """Note the chain (the response finished) before yielding."""


Step = ChannelEvent | Decision | None
"""An event to yield as it is, a Decision, or None (nothing to do)."""


def first_and_more(fold: Fold, events: Iterable[ChannelEvent | None]) -> ChannelEvent | None:
    """What a fold's ``feed`` returns when one server event made several: the first of
    ``events`` (Nones left out), the rest left in ``fold.more``; calls started count as
    output."""
    made = tuple(event for event in events if event is not None)
    fold.deltas += sum(type(event) is ToolCallOpened for event in made)
    fold.more = made[1:]
    return made[0] if made else None


def merged(parts: list[str]) -> TextDelta:
    """One delta for the deltas that arrived together (``parts`` not empty).

    A provider streaming one token per message at thousands of tokens per second
    often has several messages waiting by the time the reader looks. Each
    ``TextDelta`` crosses about five async-generator layers (the channel, the turn,
    the conversation, the front end) and the edit-block parser; one delta for all
    that arrived together pays that once. Text is merged only up to the next
    non-text event, which keeps its place: the order of text, tool-call events, usage
    and the finish is exactly what was sent. Nothing waits to be merged: a reader
    yields what it holds before it would wait for the network.
    """
    return TextDelta(parts[0] if len(parts) == 1 else "".join(parts))


F = TypeVar("F", bound=Fold)


class ReadMachine(Generic[F]):
    """The state of one response being read: stopping, queued, ended.

    Rules:

    - ``stop()`` marks the machine stopping; from then on text is swallowed and
      the first terminal event, a closed socket or silence ends the turn as
      ``TurnFinished("cancelled")``.
    - Silence after an accepted steer whose successor never started ends the turn
      with what the response would have ended with (``fold.tentative``); other
      silence is a stall (queue timeout while queued, idle timeout otherwise),
      retryable only before any output, and on a WebSocket only before a response id
      (the connection held that response; a new POST starts afresh).
    - While the server says the request is queued (``response.queued``, the SSE
      comment ``: queued N``) the longer queue timeout applies; anything else
      switches back to the idle one.
    - Until the first output (text or a tool call) the first-token limit applies
      (:mod:`spark_cli.transport.silence`: a slow prefill is not a stall); silence
      past it is never retried (the server may still be working on the prompt).
    - A terminal event ends the response: the usage (if any) is yielded before
      it, and the chain is noted before either, so a consumer may stop at
      ``TurnFinished``.
    - While stopping, tool calls are swallowed as text is: a stopped turn's calls
      are never run.
    - A frame that made several events (the fold's ``more``: a call that completes
      without having opened, a final response holding calls never streamed) is
      decided event by event and the decisions joined into one.

    Hot path: a text delta while neither stopping nor queued costs two attribute
    reads and one comparison and returns the delta itself (no allocation).
    """

    __slots__ = ("_idle", "_queue_timeout", "_retry_started", "ended", "first_token", "fold",
                 "prefill", "queued", "stopping")

    def __init__(self, fold: F, idle: float, queue_timeout: float, *,
                 first_token: float | None = None, prefill: ChannelError | None = None,
                 retry_started: bool = False) -> None:
        self.fold = fold
        self._retry_started = retry_started
        """A stall before any output is retried also after the response started."""
        self._idle = idle
        self._queue_timeout = max(queue_timeout, idle)
        self.first_token = max(first_token or idle, idle)
        """The allowed silence until the first output."""
        self.prefill = prefill
        """The error of a silence before the first output (None: output has started, or no
        first-token limit was given)."""
        self.stopping = False
        """``stop()`` was asked for: the turn ends as cancelled."""
        self.ended = False
        """The server ended the request with an ``error`` event (the socket is fine)."""
        self.queued = False
        """The server said the request waits for capacity (the queue timeout applies)."""

    @classmethod
    def for_turn(cls, fold: F, request: TurnRequest, idle: float, queue_timeout: float,
                 first_token: float | None, *, retry_started: bool = False) -> ReadMachine[F]:
        """The machine of one attempt at ``request``: its first-token limit is
        ``first_token`` if configured, else derived from the prompt's size."""
        limit = first_token_limit(request, first_token, idle)
        prefill = prefill_timeout(limit, prompt_tokens(request),
                                  configured=first_token is not None)
        return cls(fold, idle, queue_timeout, first_token=limit, prefill=prefill,
                   retry_started=retry_started)

    @property
    def limit(self) -> float:
        """The silence allowed now, seconds."""
        if self.queued:
            return self._queue_timeout
        return self._idle if self.prefill is None else self.first_token

    @property
    def over(self) -> bool:
        """Nothing more will arrive for this response that a later turn must not read."""
        return self.fold.finished is not None or self.stopping or self.ended

    def stop(self) -> bool:
        """Mark the response stopping; False when it already was (nothing more to do)."""
        if self.stopping:
            return False
        self.stopping = True
        return True

    # ---- inputs ----

    def on_event(self, out: ChannelEvent | None, link_open: bool) -> Step:
        """The fold's output for one frame (``None``: the frame made no event)."""
        if not self.queued and not self.stopping and type(out) is TextDelta \
                and self.prefill is None:
            return out  # the hot path
        fold = self.fold
        if fold.more:
            more, fold.more = fold.more, ()
            return self._several((out, *more), link_open)
        return self._one(out, link_open)

    def _several(self, outs: tuple[ChannelEvent | None, ...], link_open: bool) -> Step:
        """One frame's several events, decided one by one and joined (in order)."""
        emit: list[ChannelEvent] = []
        remember = done = False
        for out in outs:
            step = self._one(out, link_open)
            if step is None:
                continue
            if not isinstance(step, Decision):
                emit.append(step)
                continue
            emit += step.emit
            remember = remember or step.remember
            if step.done:
                done = True
                break
        return Decision(tuple(emit), done=done, remember=remember)

    def _one(self, out: ChannelEvent | None, link_open: bool) -> Step:
        if self.prefill is not None and type(out) in _OUTPUT:
            self.prefill = None  # the first output: the idle limit from now
        self.queued = type(out) is Queued  # anything but a queue notice: the wait is over
        if out is None:
            return None
        fold = self.fold
        if self.stopping:
            if fold.finished is not None or not link_open:
                return Decision((self.cancelled(),), done=True)
            if type(out) in _OUTPUT:
                return None
        if type(out) is TurnFinished:
            emit = (fold.usage, out) if fold.usage is not None else (out,)
            return Decision(emit, done=True, remember=True)
        return out

    def on_silence(self) -> Decision:
        """No frame for the allowed time (idle or queue timeout)."""
        fold = self.fold
        if self.stopping:
            return Decision((self.cancelled(),), done=True)
        if fold.tentative is not None:  # a promised steer successor never started
            fold.finished, fold.tentative = fold.tentative, None
            return Decision((fold.finished,), done=True, drop="steer successor missing")
        if self.prefill is not None and not self.queued:
            return Decision(drop="no first token", error=self.prefill)
        error = stall_error(self._idle, self._queue_timeout, queued=self.queued,
                            chars=fold.chars,
                            retryable=fold.deltas == 0
                            and (self._retry_started or fold.response_id is None))
        return Decision(drop="idle timeout", error=error)

    def on_closed(self, detail: str = "") -> Decision:
        """The socket closed (``detail``: e.g. `` (close code 1011 overloaded)``)."""
        if self.stopping:
            return Decision((self.cancelled(),), done=True, drop="connection closed")
        return Decision(drop="connection closed", error=self.cut_short(detail))

    def cut_short(self, detail: str = "") -> ChannelError:
        """The connection ended before the response finished (``detail``: why)."""
        return ChannelError(
            "connection",
            f"connection closed {output_so_far(self.fold.chars)} before the response "
            f"finished{detail}",
            retryable=True,
        )

    def on_malformed(self, raw: str | bytes) -> Decision:
        """A frame that is not JSON: nothing after it can be trusted."""
        error = ChannelError("protocol", f"malformed frame from the server: {raw[:80]!r}")
        return Decision(drop="malformed frame", error=error)

    def on_bad_event(self, error: ChannelError) -> Decision:
        """An event the fold refused (no type, a delta without text, ...)."""
        return Decision(drop="malformed event", error=error)

    def on_provider_error(self, error: ChannelError) -> Decision:
        """An ``error`` event: it ends the request; the socket is fine."""
        self.ended = True
        return Decision(error=error)

    def cancelled(self) -> TurnFinished:
        return TurnFinished("cancelled", None, self.fold.response_id)

