"""The one small interface between a session and any model channel.

Transports (WebSocket Responses, HTTP SSE Chat Completions / Responses)
implement :class:`Channel`; the session and front ends only ever see this
module. Everything here is plain data: no I/O. This module is on the
launch -> request path, and making a dataclass costs ~0.4 ms at import (each
generated method is compiled), so the dataclasses are slotted, not ``frozen``
(treat every value as immutable all the same), and generate only ``__init__``:
``__eq__`` and ``__repr__`` (the same results as generated ones) come from
:class:`spark_cli.protocol.values.Value`.

Rules every channel follows:

- ``stream(request)`` yields :data:`ChannelEvent` values and ends with exactly
  one :class:`TurnFinished`, or raises :class:`ChannelError`.
- ``request.messages`` is the whole conversation; a channel that can chain
  (``previous_response_id``) sends only what is new and replays everything on a
  fresh connection.
- Waits and retries (429, 5xx, capacity) happen inside the channel and are
  reported as :class:`WaitingToRetry` / :class:`Queued` so a UI can count down.
  A channel retries on its own only before any :class:`TextDelta` of the turn
  was yielded; a failure after output started raises ``ChannelError`` (the
  caller decides; nothing already applied is ever replayed twice).
- ``stop()`` ends the running stream now: it finishes with
  ``TurnFinished(status="cancelled")``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Literal, Protocol

from spark_cli.protocol.values import Value, value

Role = Literal["system", "developer", "user", "assistant"]


@value
class Message(Value):
    role: Role
    content: str


@value
class TurnRequest(Value):
    model: str
    messages: tuple[Message, ...]
    instructions: str = ""
    max_output_tokens: int | None = None


@value
class Capabilities(Value):
    steer: bool = False
    """``response.steer``: redirect the running response in-band."""
    cancel: bool = False
    """An in-band cancel (the bundled engine's advertised extension)."""
    persistent: bool = False
    """One connection reused across turns."""


# ---- events a channel yields (past tense; streamed pieces end in Delta) ----


@value
class RequestSent(Value):
    """The request has left: its bytes were written to the connection.

    Yielded only once they were (never for a request that could not be sent,
    e.g. an unreachable host), so a consumer may do slow work on it (load the
    edit applier) without delaying the send: that work overlaps the model's TTFT.
    """

    at: float
    """``time.perf_counter()`` when the request left (latency mark)."""


@value
class ResponseStarted(Value):
    response_id: str | None
    at: float


@value
class TextDelta(Value):
    text: str


@value
class Queued(Value):
    position: int
    """1-based place in the provider's capacity queue."""


@value
class WaitingToRetry(Value):
    seconds: float
    reason: str
    attempt: int


@value
class Reconnected(Value):
    reason: str
    """Why a new connection was opened (the context was replayed on it)."""


@value
class SteerAccepted(Value):
    pass


@value
class SteerRejected(Value):
    code: str
    message: str


@value
class Steered(Value):
    """The running response ended for a steer; its successor starts streaming now."""

    previous_response_id: str | None
    response_id: str | None


@value
class UsageReported(Value):
    input_tokens: int
    output_tokens: int
    time_info: dict[str, float] | None = None
    """The provider's own timing breakdown when it sends one (Cerebras' ``time_info``:
    ``queue_time``, ``prompt_time``, ``completion_time``, ``total_time``, seconds)."""


TurnStatus = Literal["completed", "incomplete", "failed", "cancelled"]


@value
class TurnFinished(Value):
    status: TurnStatus
    reason: str | None = None
    """``incomplete_details.reason`` (e.g. ``max_output_tokens``) or the failure message."""
    response_id: str | None = None


ChannelEvent = (
    RequestSent
    | ResponseStarted
    | TextDelta
    | Queued
    | WaitingToRetry
    | Reconnected
    | SteerAccepted
    | SteerRejected
    | Steered
    | UsageReported
    | TurnFinished
)

ErrorKind = Literal[
    "auth",
    "rate_limit",
    "quota",
    "context_length",
    "bad_request",
    "not_found",
    "server",
    "connection",
    "timeout",
    "protocol",
]


class ChannelError(Exception):
    """A turn could not be completed; ``message`` is specific and safe to show."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        retryable: bool = False,
    ) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.message = message
        self.status = status
        self.code = code
        self.retryable = retryable


class Channel(Protocol):
    """What the session needs from a model channel."""

    @property
    def capabilities(self) -> Capabilities: ...

    def stream(self, request: TurnRequest) -> AsyncGenerator[ChannelEvent, None]:
        """Run one turn; see the module rules."""
        ...

    async def steer(self, text: str) -> None:
        """Redirect the running turn (only when ``capabilities.steer``)."""

    async def stop(self) -> None:
        """Interrupt the running turn now."""

    async def warm(self, request: TurnRequest | None = None) -> None:
        """Connect ahead of the first turn (a no-op where nothing persists).

        With a ``request``, a channel that can chain may send its context ahead
        without generating (``generate: false``), so the real turn sends only
        the new input."""

    async def aclose(self) -> None:
        """Release connections."""
