"""The retry loop every channel shares: a retryable error before any output is reported as
:class:`WaitingToRetry`, waited out (the provider's delay, else backoff with jitter) and
retried up to ``max_attempts``; a wait past ``max_wait`` fails at once; ``stop`` cancels."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable

from spark_cli.protocol.channel import (
    ChannelError,
    ChannelEvent,
    TextDelta,
    ToolCallOpened,
    TurnFinished,
    WaitingToRetry,
)
from spark_cli.protocol.ratelimits import RetryDelay, backoff_delay, delay_from_message
from spark_cli.protocol.secrets import NO_SECRETS, Secrets
from spark_cli.record import record
from spark_cli.transport.errors import ProviderError, masked


@record
class RetryPolicy:
    """How many attempts a turn gets and how long to wait between them."""

    max_attempts: int = 4
    max_wait: float = 30.0
    """Longest single wait; a provider asking for more fails the turn instead."""
    backoff_base: float = 0.5
    backoff_cap: float = 8.0
    rand: Callable[[], float] = random.random


def delay_for(error: ChannelError, attempt: int, policy: RetryPolicy) -> RetryDelay:
    """The wait before the next retry: the provider's, else one its message names, else backoff."""
    asked = error.retry_after if isinstance(error, ProviderError) else None
    if asked is not None:
        return asked
    seconds = delay_from_message(error.message)
    if seconds is not None:
        return RetryDelay(seconds, "message")
    return RetryDelay(backoff_delay(attempt, base=policy.backoff_base, cap=policy.backoff_cap,
                                    rand=policy.rand), "backoff")


async def with_retries(
    attempt: Callable[[int], AsyncIterator[ChannelEvent]],
    policy: RetryPolicy,
    stop: asyncio.Event,
    *,
    secrets: Secrets = NO_SECRETS,
    resend: str = "",
) -> AsyncIterator[ChannelEvent]:
    """Run ``attempt(n)`` (n = 1, 2, ...) until one finishes or a failure is final.

    Every ChannelError is masked with ``secrets`` here; ``resend`` says what a retry costs."""
    number = 1
    while True:
        output_started = False
        try:
            async for event in attempt(number):
                if type(event) is TextDelta or type(event) is ToolCallOpened:
                    output_started = True
                yield event
            return
        except ChannelError as error:
            masked(error, secrets)
            if output_started or not error.retryable or stop.is_set():
                raise
            if number >= policy.max_attempts:
                raise _copy(error, f"{error.message} (gave up after {number} attempts)") from error
            delay = delay_for(error, number, policy)
            if delay.seconds > policy.max_wait:
                raise _copy(error, f"{error.message} (the provider asked to wait "
                            f"{delay.seconds:g}s via {delay.source}, longer than the "
                            f"{policy.max_wait:g}s limit; try again later)") from error
            reason = f"{error.message}; {resend}" if resend else error.message
            yield WaitingToRetry(delay.seconds, reason, number)
        if await _wait_or_stop(stop, delay.seconds):
            yield TurnFinished("cancelled", "stopped while waiting to retry")
            return
        number += 1


async def _wait_or_stop(stop: asyncio.Event, seconds: float) -> bool:
    """Sleep ``seconds``; True when ``stop`` was set meanwhile."""
    if stop.is_set():
        return True
    try:
        async with asyncio.timeout(seconds):
            await stop.wait()
    except TimeoutError:
        return False
    return True


def _copy(error: ChannelError, message: str) -> ChannelError:
    return ChannelError(error.kind, message, status=error.status, code=error.code, retryable=False)
