"""What a session turn yields to a front end: plain data, past tense (streamed pieces: Delta).

The channel events a UI needs, prose, edits landed or refused, the tool loop's events, and
one final ``TurnCompleted`` or ``TurnFailed``; ``SessionEvent`` is the closed union.
"""

from __future__ import annotations

from typing import Literal

from spark_cli.edits.model.blocks import BlockRejected, ProseDelta
from spark_cli.edits.model.outcome import EditApplied, RefusedEdit
from spark_cli.protocol.channel import (
    Queued,
    Reconnected,
    RequestSent,
    SteerAccepted,
    Steered,
    SteerRejected,
    UsageReported,
    WaitingToRetry,
)
from spark_cli.record import record
from spark_cli.session.spend.usage import Usage

__all__ = [
    "BlockRejected",
    "CommandFinished",
    "CommandOutput",
    "CommandStarted",
    "CompactionFinished",
    "CompactionStarted",
    "EditApplied",
    "EditLanded",
    "EditRefused",
    "FailureKind",
    "HookWarning",
    "ProseDelta",
    "Queued",
    "Reconnected",
    "RefusedEdit",
    "RequestSent",
    "SessionEvent",
    "SteerAccepted",
    "SteerRejected",
    "Steered",
    "ToolCallFinished",
    "ToolCallStarted",
    "ToolLoopStopped",
    "TurnCompleted",
    "TurnFailed",
    "UsageReported",
    "WaitingToRetry",
]


@record
class EditLanded:
    """An edit block was applied (or, under a dry run, would have been)."""

    outcome: EditApplied


@record
class EditRefused:
    """An edit block was refused; nothing of it was written."""

    outcome: RefusedEdit


@record
class ToolCallStarted:
    """spark started running a call (its arguments complete); a ``ToolCallFinished`` follows."""

    call_id: str
    name: str
    arguments: str
    """The JSON text the model wrote (it may be invalid: the call then fails)."""
    label: str
    """The call in a few words: ``search TAX_RATE``, ``read src/shop/pricing.py 1–40``."""
    server: str | None = None
    """The MCP server whose tool this is (``mcp__SERVER__TOOL``); None for spark's own."""


@record
class ToolCallFinished:
    """A call ran (or was refused, or cancelled); ``output`` went back to the model."""

    call_id: str
    name: str
    arguments: str
    label: str
    ok: bool
    """False: the call failed; the model was told why under the call's own id."""
    summary: str
    """The result in a few words: ``3 hits``, ``40 lines``, ``no such file``."""
    output: str
    """The text sent back to the model (cut to fit the window where it had to be)."""
    ms: float
    """Milliseconds spark spent running it."""
    line: str
    """The call and its result in one line: ``search TAX_RATE → 3 hits``."""
    server: str | None = None
    """The MCP server whose tool this is; None for spark's own tools."""


CommandEnd = Literal["exit", "timeout", "stopped", "declined", "refused"]
"""How a ``run_command`` call ended, or why it never ran (``declined``, ``refused``)."""


@record
class CommandStarted:
    """A ``run_command`` call is running (the user allowed it, or the policy did)."""

    call_id: str
    command: str
    cwd: str
    sandboxed: bool


@record
class CommandOutput:
    """Output of a running command as it came (interleaved, secrets masked), a chunk per read."""

    call_id: str
    text: str


@record
class CommandFinished:
    """A ``run_command`` call ended (or never ran: ``ended``); ``output`` went to the model."""

    call_id: str
    command: str
    ended: CommandEnd
    exit_code: int | None
    duration_s: float
    output: str
    line: str
    """One line for a person: ``pytest -q → exit 1 · 2.3 s``, ``make → declined``."""
    changed: tuple[str, ...] = ()
    """Repo files the command changed (not in spark's undo journal)."""


@record
class ToolLoopStopped:
    """``max_tool_calls`` reached: the rest were answered "not run" and the turn ended."""

    message: str
    calls: int
    not_run: int


@record
class HookWarning:
    """A hook failed without blocking (another exit, a timeout, no such program, binary or
    flooding output); the turn went on."""

    event: str
    """The hook's event (``PreToolUse``...)."""
    command: str
    reason: str

    @property
    def line(self) -> str:
        return f"hook {self.event} {self.command!r}: {self.reason}"


@record
class CompactionStarted:
    """The conversation is being compacted (``auto``: it would pass ``compact_at``)."""

    tokens: int
    """The context's size before, in the server's tokens (of ``window``)."""
    window: int
    auto: bool


CompactionOutcome = Literal["compacted", "cancelled", "failed", "nothing"]


@record
class CompactionFinished:
    """How a compaction ended; ``line`` says it (``context 81% → 12% · compacted in 1.4 s``)."""

    outcome: CompactionOutcome
    tokens_before: int
    tokens_after: int
    window: int
    seconds: float
    line: str
    turns: int = 0
    """The turns folded into the summary."""
    auto: bool = False
    """It ran before a turn (the turn is not sent when it was cancelled)."""
    usage: Usage | None = None
    """The compaction request's tokens and cost (None: nothing was sent)."""


TurnOutcome = Literal["completed", "incomplete", "cancelled", "failed"]


@record
class TurnCompleted:
    """The turn ended (finished, cut short or interrupted: ``reason``).

    ``ttft_s``: first request out to first output; ``tokens_per_s``: output tokens over the
    streaming time (first to last delta, less the tool round trips)."""

    status: TurnOutcome
    reason: str | None
    ttft_s: float | None
    output_tokens: int
    tokens_per_s: float | None
    applied: int
    refused: int
    duration_s: float
    dropped_blocks: int = 0
    """Blocks that never closed (interrupt, cut-off answer): dropped, never half-applied."""
    time_info: dict[str, float] | None = None
    """The provider's own timing breakdown when it sent one (Cerebras' ``time_info``)."""
    tool_calls: int = 0
    """Tool calls spark ran for the model in this turn."""
    tool_time_s: float = 0.0
    """spark's side of the tool round trips: last call complete to next request out."""
    usage: Usage | None = None
    """The turn's tokens and cost, summed over its responses."""


FailureKind = Literal[
    # the provider / transport (``ChannelError.kind``)
    "auth", "rate_limit", "quota", "context_length", "bad_request", "not_found", "server",
    "connection", "timeout", "protocol",
    # the request, before anything was sent (the caller's to fix)
    "budget", "binary", "encoding", "too_large", "not_found_file", "path",
    "hook",  # the user's UserPromptSubmit hook blocked the message
]


@record
class TurnFailed:
    """The turn could not run or broke off (edits that landed stay); ``message`` is safe to show."""

    kind: FailureKind
    message: str
    applied: int = 0
    refused: int = 0
    usage: Usage | None = None
    """What the turn's responses used before it failed (None: nothing was sent)."""


SessionEvent = (
    RequestSent
    | ProseDelta
    | EditLanded
    | EditRefused
    | BlockRejected
    | Queued
    | WaitingToRetry
    | Reconnected
    | Steered
    | SteerAccepted
    | SteerRejected
    | UsageReported
    | ToolCallStarted
    | ToolCallFinished
    | ToolLoopStopped
    | HookWarning
    | CommandStarted
    | CommandOutput
    | CommandFinished
    | CompactionStarted
    | CompactionFinished
    | TurnCompleted
    | TurnFailed
)
