"""Prefill is not a stall: how long a channel waits for the first token, and what it says.

A CPU server sends its headers at once and then nothing until it has processed the
whole prompt (a minute for 5k tokens is normal; llama.cpp sends ``: ping`` comments
meanwhile). So until the first token the channel allows ``first_token_timeout``
seconds in all (SSE comments keep no clock of their own: they only show the server is
there), derived from the prompt's size unless configured; the idle timeout
(``idle_timeout``) applies between tokens, once output has started.

A request that timed out in prefill is never sent again as it is: the server may
still be working on it, and a resend would start the whole prompt over behind it.
The error names the setting to raise.
"""

from __future__ import annotations

from spark_cli.protocol.channel import ChannelError, Message, TurnRequest
from spark_cli.protocol.tokens import kilo

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
    """Seconds allowed from the request leaving to the first token: ``configured``, else
    ``BASE_S`` + ``PER_TOKEN_S`` per prompt token (at most ``CAP_S``); never below
    ``idle``."""
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
    """What a retry before any output costs, said in its reason: the whole prompt again."""
    return f"resending the whole prompt, about {kilo(tokens)} tokens"
