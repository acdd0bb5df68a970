"""What a session turn yields to a front end: plain data, past tense (streamed pieces: Delta).

A turn's stream is: channel events passed through where a UI needs them (``RequestSent``,
``Queued``, ``WaitingToRetry``, ``Reconnected``, ``UsageReported``, the steering events:
the channel's own types), ``ProseDelta`` for text outside edit blocks, ``EditLanded`` /
``EditRefused`` the moment a block was applied or refused (wrapping the edit engine's
``outcome``), ``BlockRejected`` for a malformed block (or an unclosed one at the end of
an interrupted answer), the tool loop's events, and exactly one final ``TurnCompleted``
or ``TurnFailed``. ``SessionEvent`` is a closed union: front ends match on these types
(``spark_cli.session.api``), and ``spark_cli.render.jsonl.EVENT_TYPES`` gives each its
``--json`` name.
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
    """spark started running a call the model made (its arguments are complete); a
    ``ToolCallFinished`` of the same ``call_id`` follows."""

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
    """False: the call failed (bad arguments, unknown tool, outside the repo, cancelled);
    the model was told why under the call's own id."""
    summary: str
    """The result in a few words: ``3 hits``, ``40 lines``, ``no such file``."""
    output: str
    """The text sent back to the model (cut to fit the window where it had to be)."""
    ms: float
    """Milliseconds spark spent running it."""
    line: str
    """The call and its result in one line for a person: ``search TAX_RATE → 3 hits``,
    ``read src/shop/pricing.py 1–40 of 120``."""
    server: str | None = None
    """The MCP server whose tool this is; None for spark's own tools."""


CommandEnd = Literal["exit", "timeout", "stopped", "declined", "refused"]
"""How a ``run_command`` call ended: the command exited, was killed at its timeout or
stopped by the user; or it never ran: the user ``declined``, or the policy ``refused`` it
(commands off, no sandbox, a front end that cannot ask)."""


@record
class CommandStarted:
    """A ``run_command`` call is running (the user allowed it, or the policy did)."""

    call_id: str
    command: str
    cwd: str
    sandboxed: bool


@record
class CommandOutput:
    """Output of a running command, as it came (stdout and stderr interleaved, secrets
    masked); a chunk per read, never per byte."""

    call_id: str
    text: str


@record
class CommandFinished:
    """A ``run_command`` call ended (or never ran: ``ended`` says which); ``output`` went
    back to the model under the call's id."""

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
    """The model made ``max_tool_calls`` calls in this turn: spark ran no more and ended the
    turn (the calls it did not run were answered "not run" so the conversation stays valid)."""

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
    """How a compaction ended; ``line`` says it (``context 81% → 12% · compacted in 1.4 s``,
    or why the conversation was left as it was)."""

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
    """The compaction request's tokens and cost (None: nothing was sent); an automatic
    one's are in its turn's usage too."""


TurnOutcome = Literal["completed", "incomplete", "cancelled", "failed"]


@record
class TurnCompleted:
    """The turn ended (the answer finished, was cut short, or was interrupted).

    ``status`` is the channel's final status; ``reason`` says why it was not
    ``completed`` (e.g. ``max_output_tokens``, ``interrupted``, ``max_tool_calls``).
    ``ttft_s`` is from the first request leaving to the first output of its response
    (a text delta or a tool call); ``tokens_per_s`` is output tokens (the provider's
    usage, else counted, summed over the turn's responses) over the streaming time
    (first to last delta, less the tool round trips).
    """

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
    """spark's side of the turn's tool round trips: from the last call of a response
    complete to the next request on the wire (running the calls included)."""
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
    """The turn could not run or broke off; ``message`` is specific and safe to show.

    Edits that landed before a mid-stream failure stay (one undo checkpoint);
    an unclosed block is dropped.
    """

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
