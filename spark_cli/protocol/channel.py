"""The one small interface between a session and any model channel: :class:`Channel` and
plain data (records), no I/O; the rules every channel follows are on :class:`Channel`."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any, Literal, Protocol

from spark_cli.record import record

Role = Literal["system", "developer", "user", "assistant"]


@record
class Message:
    """One message of a conversation: who said it, and the text."""

    role: Role
    content: str


@record
class ToolSpec:
    """A function the model may call: its name, what it does, its JSON-schema parameters."""

    name: str
    description: str
    parameters: dict[str, Any]


@record
class ToolCall:
    """A call the model made, as a conversation item of the assistant's."""

    call_id: str
    """The id the output must answer (Responses ``call_id``, Chat ``tool_calls[].id``)."""
    name: str
    arguments: str
    """The JSON text the model wrote, as it wrote it: it may be invalid."""
    item_id: str | None = None
    """The Responses output item id (``fc_…``), where the wire has one."""


@record
class ToolOutput:
    """The result of one call, sent back to the model under its call id."""

    call_id: str
    output: str


ConversationItem = Message | ToolCall | ToolOutput
"""What a conversation holds: messages, the model's calls and their outputs."""


@record
class TurnRequest:
    """What one turn asks of the model: the conversation, the instructions, the tools."""

    model: str
    messages: tuple[ConversationItem, ...]
    instructions: str = ""
    max_output_tokens: int | None = None
    tools: tuple[ToolSpec, ...] = ()
    """The tools the model may call in this turn (empty: no ``tools`` field is sent)."""
    seed: int | None = None
    """Sampling seed (best of N gives each candidate its own); None: not sent."""
    temperature: float | None = None
    """Sampling temperature; None: the provider's default (not sent)."""


@record
class Capabilities:
    """What a channel can do beyond streaming an answer."""

    steer: bool = False
    """``response.steer``: redirect the running response in-band."""
    cancel: bool = False
    """An in-band cancel (the bundled engine's advertised extension)."""


# ---- events a channel yields (past tense; streamed pieces end in Delta) ----


@record
class RequestSent:
    """The request's bytes were written (never yielded for one that was not): work overlaps TTFT."""

    at: float


@record
class ResponseStarted:
    """The provider began its response (its id, where it has one)."""

    response_id: str | None
    at: float


@record
class TextDelta:
    """The next piece of the answer's text."""

    text: str


@record
class ToolCallOpened:
    """The model began a call (its name is known; the arguments are still streaming)."""

    call_id: str
    name: str


@record
class ToolCallCompleted:
    """A call's arguments are complete: the whole call, ready to run."""

    call: ToolCall


@record
class Queued:
    """The request waits in the provider's capacity queue (``position``: 1-based)."""

    position: int


@record
class WaitingToRetry:
    """The attempt failed; the channel waits ``seconds`` before the next one."""

    seconds: float
    reason: str
    attempt: int


@record
class Reconnected:
    """The channel opened a new connection (for ``reason``) and replayed the context on it."""

    reason: str


@record
class SteerAccepted:
    """The provider took a redirect of the running response."""


@record
class SteerRejected:
    """The provider refused a redirect of the running response."""

    code: str
    message: str


@record
class Steered:
    """The running response ended for a steer; its successor starts streaming now."""

    previous_response_id: str | None
    response_id: str | None


@record
class UsageReported:
    """The provider's token counts for the response (``input_tokens`` includes the cached)."""

    input_tokens: int
    output_tokens: int
    time_info: dict[str, float] | None = None
    """The provider's timing breakdown in seconds when it sends one (Cerebras' ``time_info``)."""
    cached_tokens: int = 0
    """Input tokens the server read from its prompt cache (part of ``input_tokens``)."""


TurnStatus = Literal["completed", "incomplete", "failed", "cancelled"]


@record
class TurnFinished:
    """The response ended (the last event of a turn)."""

    status: TurnStatus
    reason: str | None = None
    """``incomplete_details.reason`` (e.g. ``max_output_tokens``) or the failure message."""
    response_id: str | None = None


ChannelEvent = (RequestSent | ResponseStarted | TextDelta | ToolCallOpened | ToolCallCompleted
                | Queued | WaitingToRetry | Reconnected | SteerAccepted | SteerRejected
                | Steered | UsageReported | TurnFinished)

ErrorKind = Literal["auth", "rate_limit", "quota", "context_length", "bad_request", "not_found",
                    "server", "connection", "timeout", "protocol"]


@record
class Overflow:
    """A request refused as longer than the window (either figure None: not said)."""

    requested: int | None
    window: int | None


class ChannelError(Exception):
    """A turn could not be completed; ``message`` is specific and safe to show."""

    def __init__(self, kind: ErrorKind, message: str, *, status: int | None = None,
                 code: str | None = None, retryable: bool = False,
                 overflow: Overflow | None = None) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.message = message
        self.status = status
        self.code = code
        self.retryable = retryable
        self.overflow = overflow
        """A ``context_length`` error's figures (what the server said of both sizes)."""


class Channel(Protocol):
    """What the session needs from a model channel.

    - ``stream(request)`` yields :data:`ChannelEvent` values and ends with exactly one
      :class:`TurnFinished`, or raises :class:`ChannelError`; ``stop()`` ends it cancelled.
    - ``request.messages`` is the whole conversation; a chaining channel sends only what is new.
    - Waits and retries happen inside, reported as :class:`WaitingToRetry` / :class:`Queued`,
      and only before any output (a :class:`TextDelta` or :class:`ToolCallOpened`).
    - Tools: calls arrive as ``ToolCallOpened`` then ``ToolCallCompleted``; the caller extends
      the conversation with the response's text (if any), its ``ToolCall``s in order, then one
      ``ToolOutput`` each, and a chaining channel sends only the outputs."""

    @property
    def capabilities(self) -> Capabilities: ...

    def stream(self, request: TurnRequest) -> AsyncGenerator[ChannelEvent, None]:
        """Run one turn, by the rules above."""
        ...

    async def steer(self, text: str) -> None:
        """Redirect the running turn (only when ``capabilities.steer``)."""

    async def stop(self) -> None:
        """Interrupt the running turn now."""

    async def warm(self, request: TurnRequest | None = None) -> None:
        """Connect ahead of the first turn; send ``request``'s context without generating."""

    async def aclose(self) -> None:
        """Release connections."""
