"""What one response's read loop decides, without a socket (sans-I/O), for both wires: the
loops only move bytes and hand each happening to a :class:`ReadMachine`, which answers with
what to do; text received together goes up as one delta (:func:`merged`)."""

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
    """Events the last ``feed`` made after the one it returned (the machine takes them)."""

    @property
    def chars(self) -> int:
        """Characters of output so far (for honest error messages)."""
        ...


@record
class Decision:
    """What the read loop does next: drop, note the chain, yield ``emit``, raise or end."""

    emit: tuple[ChannelEvent, ...] = ()
    done: bool = False
    """The response is over: return after ``emit``."""
    drop: str | None = None
    """Close the connection (its server state is lost), for this reason."""
    error: ChannelError | None = None
    remember: bool = False
    """Note the chain (the response finished) before yielding."""


Step = ChannelEvent | Decision | None
"""An event to yield as it is, a Decision, or None (nothing to do)."""


def first_and_more(fold: Fold, events: Iterable[ChannelEvent | None]) -> ChannelEvent | None:
    """The first of ``events`` (Nones left out), the rest left in ``fold.more``."""
    made = tuple(event for event in events if event is not None)
    fold.deltas += sum(type(event) is ToolCallOpened for event in made)
    fold.more = made[1:]
    return made[0] if made else None


GATHER_S = 0.002
"""After text goes up, a reader that can see its queue sleeps this long: the tokens that come
meanwhile climb the generator layers once (`spark bench stream`, docs/benchmarks.md)."""


def merged(parts: list[str]) -> TextDelta:
    """One delta for the deltas that arrived together (``parts`` not empty).

    Each delta crosses about eight generator layers; merging only up to the next non-text event
    keeps the order exact; only :data:`GATHER_S` is waited (`spark bench stream` measures it)."""
    return TextDelta(parts[0] if len(parts) == 1 else "".join(parts))


F = TypeVar("F", bound=Fold)


class ReadMachine(Generic[F]):
    """The state of one response being read: stopping, queued, ended.

    - Stopping swallows output (tool calls too); the first terminal event, close or silence
      ends the turn as cancelled.
    - Silence: a missing steer successor ends with ``fold.tentative``; before the first output
      past the first-token limit it is never retried; else a stall, retryable only before any
      output (on a WebSocket, before a response id). Queued: the queue timeout applies.
    - A terminal event yields the usage before it, the chain noted first.
    - Hot path: a text delta while not stopping, queued or in prefill returns itself."""

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
        """The error of a silence before the first output (None: output started, or no limit)."""
        self.stopping = False
        self.ended = False
        """The server ended the request with an ``error`` event (the socket is fine)."""
        self.queued = False
        """The server said the request waits for capacity (the queue timeout applies)."""

    @classmethod
    def for_turn(cls, fold: F, request: TurnRequest, idle: float, queue_timeout: float,
                 first_token: float | None, *, retry_started: bool = False) -> ReadMachine[F]:
        """The machine of one attempt (first-token limit: configured, else from the prompt)."""
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

