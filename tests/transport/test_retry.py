"""The wait before a retry: the provider's ask, else its message's words, else backoff."""

from __future__ import annotations

from spark_cli.protocol.channel import ChannelError
from spark_cli.protocol.ratelimits import RetryDelay
from spark_cli.transport.errors import error_from_body
from spark_cli.transport.retry import RetryPolicy, delay_for

POLICY = RetryPolicy(rand=lambda: 0.0)


def test_the_wait_comes_from_the_best_source() -> None:
    asked = error_from_body(429, b'{"error": {"message": "try again in 1s"}}',
                            headers={"retry-after": "3"})
    assert delay_for(asked, 1, POLICY) == RetryDelay(3.0, "retry-after")
    said = ChannelError("server", "busy, try again in 1s", retryable=True)
    assert delay_for(said, 1, POLICY) == RetryDelay(1.0, "message")
    silent = ChannelError("server", "busy", retryable=True)
    assert delay_for(silent, 3, POLICY) == RetryDelay(2.0, "backoff")
