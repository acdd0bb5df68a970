"""The one small interface between a session and any model channel.

Transports (WebSocket Responses, HTTP SSE Chat Completions / Responses)
implement :class:`Channel`; the session and front ends only ever see this
module. Everything here is plain data (records, :mod:`spark_cli.record`): no I/O.
The rules every channel follows, tools included, are on :class:`Channel`.
"""

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
    """The request has left: its bytes were written to the connection.

    Yielded only once they were (never for a request that could not be sent,
    e.g. an unreachable host), so a consumer may do slow work on it (load the
    edit applier) without delaying the send: that work overlaps the model's TTFT.
    """

    at: float
    """``time.perf_counter()`` when the request left (latency mark)."""


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
    """The provider's own timing breakdown when it sends one (Cerebras' ``time_info``:
    ``queue_time``, ``prompt_time``, ``completion_time``, ``total_time``, seconds)."""
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
    """A request the server refused as longer than its window (either figure may be None:
    the server did not say it); rides on a ``context_length`` :class:`ChannelError`."""

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

    Rules every channel follows:

    - ``stream(request)`` yields :data:`ChannelEvent` values and ends with exactly
      one :class:`TurnFinished`, or raises :class:`ChannelError`.
    - ``request.messages`` is the whole conversation; a channel that can chain
      (``previous_response_id``) sends only what is new and replays everything on a
      fresh connection.
    - Waits and retries (429, 5xx, capacity) happen inside the channel and are
      reported as :class:`WaitingToRetry` / :class:`Queued` so a UI can count down.
      A channel retries on its own only before any output of the turn was yielded
      (a :class:`TextDelta` or a :class:`ToolCallOpened`); a failure after output
      started raises ``ChannelError`` (the
      caller decides; nothing already applied is ever replayed twice).
    - ``stop()`` ends the running stream now: it finishes with
      ``TurnFinished(status="cancelled")``.

    Tools (the model's function calls). ``request.tools`` declares them (empty: the
    request carries no ``tools`` field at all). A response that calls tools yields
    ``ToolCallOpened`` when a call's item opens (its name known) and
    ``ToolCallCompleted`` with the whole :class:`ToolCall` once its arguments are
    complete, then finishes ``completed`` as any response does. The caller runs the
    calls and sends the next request with the conversation extended, in this order:
    the response's text as one ``Message("assistant", text)`` (only when it wrote
    any: a preamble), then every ``ToolCall`` in the order the response made them,
    then one ``ToolOutput`` per call in the same order. A channel that chains
    (``previous_response_id``) recognises that the response already holds the
    assistant message and the calls and sends only the outputs. On Chat
    Completions the assistant message and its calls travel as one assistant message
    with ``tool_calls``, each output as a ``role: "tool"`` message.
    """

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
        """Connect ahead of the first turn (a no-op where nothing persists).

        With a ``request``, a channel that can chain may send its context ahead
        without generating (``generate: false``), so the real turn sends only
        the new input."""

    async def aclose(self) -> None:
        """Release connections."""
