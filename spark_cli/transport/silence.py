"""How long a channel lets the server stay silent, and what it says when the wait runs out.

Only time spent waiting counts (a slow consumer is not a silent server); the first-token
limit grows with the prompt (prefill is not a stall)."""

from __future__ import annotations

import asyncio
from time import monotonic

from spark_cli.protocol.channel import ChannelError, Message, TurnRequest
from spark_cli.protocol.tokens import kilo
from spark_cli.transport.errors import output_so_far

QUEUE_TIMEOUT = 300.0
"""Seconds of silence allowed while the server says the request waits in its queue."""
BASE_S = 60.0
"""Seconds any first token may take (a cold model loading, a busy server)."""
PER_TOKEN_S = 0.05
"""And per prompt token: 20 tokens/s, the prefill of a 7B model on a laptop's CPU."""
CAP_S = 900.0
"""The derived limit never exceeds 15 minutes (configure more if a server needs it)."""
RESEND_SAID = 1_000
"""A retry of a prompt over this many tokens says that it resends it all."""
CHARS_PER_TOKEN = 3
"""Prompt size estimate that errs high (code runs ~3.5-4 characters per token)."""


def quiet_for(since: float, limit: float) -> asyncio.Timeout:
    """``asyncio.timeout`` for a wait whose silence began at ``since`` and may last ``limit``."""
    return asyncio.timeout(since + limit - monotonic())


def prompt_tokens(request: TurnRequest) -> int:
    """The request's size in tokens, estimated high from its characters (cheap: no regex)."""
    chars = len(request.instructions)
    for item in request.messages:
        if type(item) is Message:
            chars += len(item.content)
        else:
            chars += len(getattr(item, "arguments", "") or getattr(item, "output", "") or "")
    return chars // CHARS_PER_TOKEN


def first_token_limit(request: TurnRequest, configured: float | None, idle: float) -> float:
    """Seconds from the request leaving to the first token (configured, else by prompt size)."""
    if configured is not None:
        return max(configured, idle)
    return max(idle, min(CAP_S, BASE_S + PER_TOKEN_S * prompt_tokens(request)))


def prefill_timeout(seconds: float, tokens: int, *, configured: bool) -> ChannelError:
    """No first token within ``seconds``: not retried, and the setting is named."""
    how = ("first_token_timeout" if configured else
           "first_token_timeout, derived from the prompt's size")
    return ChannelError(
        "timeout",
        f"no first token from the server {_seconds(seconds)} s after the request (about "
        f"{kilo(tokens)} tokens) left ({how}); not sent again, the server may still be "
        "working on it: raise first_token_timeout in .spark/config.toml, or send less",
    )


def _seconds(value: float) -> str:
    return f"{value:.0f}" if value >= 10 else f"{value:g}"


def resend_note(tokens: int) -> str:
    """What a retry before any output costs: the whole prompt again (said past ``RESEND_SAID``)."""
    if tokens <= RESEND_SAID:
        return ""
    return f"resending the whole prompt, about {kilo(tokens)} tokens"


def stall_error(idle: float, queue_timeout: float, *, queued: bool, chars: int,
                retryable: bool) -> ChannelError:
    """The server went silent; never retried while queued (a new request joins the queue's back)."""
    if queued:
        return ChannelError(
            "timeout",
            f"no word from the server for {queue_timeout:g}s while the request was queued for "
            "capacity (queue timeout)",
        )
    return ChannelError(
        "timeout",
        f"no data from the server for {idle:g}s {output_so_far(chars)} (idle_timeout)",
        retryable=retryable,
    )
