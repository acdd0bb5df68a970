"""How long a channel lets the server stay silent, and what it says when the wait runs out.

:class:`IdleWatch` keeps one timer for a whole turn (``asyncio.timeout`` around every
``recv()`` would allocate and schedule per frame; kept by the ledger, docs/benchmarks.md,
`spark bench stream --baseline TREE`): only time spent waiting counts, so a slow
consumer is never mistaken for a silent server. The first-token limit is derived from the
prompt's size unless configured (prefill is not a stall: a CPU server may take a minute
for a long prompt). Which limit applies when is the read machine's rule
(:mod:`spark_cli.transport.reading`).
"""

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


class IdleWatch:
    """One timer for a turn's read loop: the loop sets :attr:`since` when it starts
    waiting and clears it when a frame arrived. Silence past :attr:`limit` cancels the
    reading task; the loop turns that into a timeout with :meth:`claim`.
    """

    __slots__ = ("_handle", "_loop", "_task", "fired", "limit", "since")

    def __init__(self, idle: float) -> None:
        task = asyncio.current_task()
        if task is None:
            raise RuntimeError("IdleWatch needs a running task")
        self._task = task
        self.limit = idle
        """Seconds of silence that count as a stall (see :meth:`set_limit`)."""
        self._loop = asyncio.get_running_loop()
        self.since: float | None = None
        """When the current wait began (None: not waiting)."""
        self.fired = False
        self._handle: asyncio.TimerHandle | None = self._loop.call_later(idle, self._check)

    def _check(self) -> None:
        since = self.since
        if since is None:
            delay = self.limit
        else:
            delay = since + self.limit - monotonic()
            if delay <= 0:
                self.fired = True
                self._handle = None
                self._task.cancel()
                return
        self._handle = self._loop.call_later(delay, self._check)

    def set_limit(self, seconds: float) -> None:
        """Change the allowed silence now (the pending check is re-armed: a shorter
        limit takes effect at once, not when a check scheduled for the longer one runs)."""
        if seconds == self.limit:
            return
        self.limit = seconds
        if self._handle is not None:
            self._handle.cancel()
            self._handle = self._loop.call_later(0, self._check)

    def claim(self) -> bool:
        """After a CancelledError: True when it was this watch's doing (and absorbed)."""
        if not self.fired:
            return False
        self.fired = False
        return self._task.uncancel() == 0

    def close(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None


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
    """What a retry before any output costs, said in its reason: the whole prompt again
    (nothing for a prompt of at most ``RESEND_SAID`` tokens)."""
    if tokens <= RESEND_SAID:
        return ""
    return f"resending the whole prompt, about {kilo(tokens)} tokens"


def stall_error(idle: float, queue_timeout: float, *, queued: bool, chars: int,
                retryable: bool) -> ChannelError:
    """The server went silent: for ``idle`` seconds, or ``queue_timeout`` while queued.

    A stall while queued is never retried: a new request would join the back of
    the queue.
    """
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
