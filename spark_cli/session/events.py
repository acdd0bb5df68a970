"""What a session turn yields to a front end: plain data, past tense (streamed pieces: Delta).

A turn's stream is: channel events passed through where a UI needs them
(``RequestSent``, ``Queued``, ``WaitingToRetry``, ``Reconnected``,
``UsageReported``, ``SteerAccepted`` / ``SteerRejected`` / ``Steered``: the
channel's own types),
``ProseDelta`` for text outside edit blocks,
``EditLanded`` / ``EditRefused`` the moment a block was applied or refused,
``BlockRejected`` for a malformed block (or an unclosed one at the end of an
interrupted answer), and exactly one final ``TurnCompleted`` or ``TurnFailed``.

``EditLanded`` and ``EditRefused`` wrap the edit engine's outcome
(``spark_cli.edits.model.outcome``) in the field ``outcome``. ``SessionEvent`` is a
closed union: front ends match on these types (``spark_cli.session.api``), and
``spark_cli.render.jsonl.EVENT_TYPES`` gives each its ``--json`` name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from spark_cli.edits.model.blocks import BlockRejected, ProseDelta
from spark_cli.edits.model.outcome import EditApplied
from spark_cli.edits.model.outcome import EditRefused as RefusedOutcome
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

__all__ = [
    "BlockRejected",
    "EditApplied",
    "EditLanded",
    "EditRefused",
    "FailureKind",
    "ProseDelta",
    "Queued",
    "Reconnected",
    "RefusedOutcome",
    "RequestSent",
    "SessionEvent",
    "SteerAccepted",
    "SteerRejected",
    "Steered",
    "TurnCompleted",
    "TurnFailed",
    "UsageReported",
    "WaitingToRetry",
]


@dataclass(frozen=True, slots=True)
class EditLanded:
    """An edit block was applied (or, under a dry run, would have been)."""

    outcome: EditApplied


@dataclass(frozen=True, slots=True)
class EditRefused:
    """An edit block was refused; nothing of it was written."""

    outcome: RefusedOutcome


TurnOutcome = Literal["completed", "incomplete", "cancelled", "failed"]


@dataclass(frozen=True, slots=True)
class TurnCompleted:
    """The turn ended (the answer finished, was cut short, or was interrupted).

    ``status`` is the channel's final status; ``reason`` says why it was not
    ``completed`` (e.g. ``max_output_tokens``, ``interrupted``). ``ttft_s`` is from
    the request leaving to the first text delta; ``tokens_per_s`` is output
    tokens (the provider's usage, else counted) over the streaming time (first to
    last delta).
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


FailureKind = Literal[
    # the provider / transport (``ChannelError.kind``)
    "auth", "rate_limit", "quota", "context_length", "bad_request", "not_found", "server",
    "connection", "timeout", "protocol",
    # the request, before anything was sent (the caller's to fix)
    "budget", "binary", "encoding", "too_large", "not_found_file", "path",
]


@dataclass(frozen=True, slots=True)
class TurnFailed:
    """The turn could not run or broke off; ``message`` is specific and safe to show.

    Edits that landed before a mid-stream failure stay (one undo checkpoint);
    an unclosed block is dropped.
    """

    kind: FailureKind
    message: str
    applied: int = 0
    refused: int = 0


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
    | TurnCompleted
    | TurnFailed
)
