from email.utils import formatdate

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spark_cli.protocol.ratelimits import (
    RetryDelay,
    backoff_delay,
    delay_from_headers,
    delay_from_message,
    parse_duration,
    parse_retry_after,
)

NOW = 1_800_000_000.0


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("6m0s", 360.0),
        ("1.5s", 1.5),
        ("250ms", 0.25),
        ("1h2m3s", 3723.0),
        ("20ms", 0.02),
        ("11.382867097855", 11.382867097855),
        ("0", 0.0),
        (" 2s ", 2.0),
    ],
)
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "soon", "5x", "-1s", "1.2.3s", "nan", "inf"])
def test_bad_durations_are_none(text: str) -> None:
    assert parse_duration(text) is None


def test_retry_after_seconds_and_http_date() -> None:
    assert parse_retry_after("3", now=NOW) == 3.0
    assert parse_retry_after("0.5", now=NOW) == 0.5
    assert parse_retry_after(formatdate(NOW + 7, usegmt=True), now=NOW) == pytest.approx(7.0)
    assert parse_retry_after(formatdate(NOW - 60, usegmt=True), now=NOW) == 0.0
    assert parse_retry_after("tomorrow", now=NOW) is None


def test_header_order_ms_then_retry_after_then_resets() -> None:
    every = {
        "retry-after-ms": "120",
        "retry-after": "2",
        "x-ratelimit-reset-requests": "6m0s",
    }
    assert delay_from_headers(every, now=NOW) == RetryDelay(0.12, "retry-after-ms")
    del every["retry-after-ms"]
    assert delay_from_headers(every, now=NOW) == RetryDelay(2.0, "retry-after")
    del every["retry-after"]
    assert delay_from_headers(every, now=NOW) == RetryDelay(360.0, "x-ratelimit-reset-requests")
    assert delay_from_headers({}, now=NOW) is None


def test_header_names_are_case_insensitive() -> None:
    assert delay_from_headers({"Retry-After-Ms": "50"}, now=NOW) == RetryDelay(
        0.05, "retry-after-ms"
    )


def test_unparseable_headers_fall_through() -> None:
    headers = {"retry-after-ms": "soon", "retry-after": "later", "x-ratelimit-reset-tokens": "1s"}
    assert delay_from_headers(headers, now=NOW) == RetryDelay(1.0, "x-ratelimit-reset-tokens")


def test_the_exhausted_limit_decides_among_resets() -> None:
    headers = {
        "x-ratelimit-reset-requests": "1s",
        "x-ratelimit-remaining-requests": "99",
        "x-ratelimit-reset-tokens": "6m0s",
        "x-ratelimit-remaining-tokens": "0",
    }
    assert delay_from_headers(headers, now=NOW) == RetryDelay(360.0, "x-ratelimit-reset-tokens")


def test_cerebras_resets_without_remaining_take_the_shortest() -> None:
    headers = {
        "x-ratelimit-reset-requests-day": "33011.382867097855",
        "x-ratelimit-reset-tokens-minute": "11.382867097855",
    }
    delay = delay_from_headers(headers, now=NOW)
    assert delay == RetryDelay(11.382867097855, "x-ratelimit-reset-tokens-minute")


@pytest.mark.parametrize(
    ("message", "seconds"),
    [
        ("Rate limit reached for gpt-x. Please try again in 1.2s. Visit ...", 1.2),
        ("Please try again in 20ms.", 0.02),
        ("Please try again in 6m0s.", 360.0),
        ("try again in 2 seconds", 2.0),
        ("Try again in 1m30s", 90.0),
    ],
)
def test_try_again_in_the_message(message: str, seconds: float) -> None:
    assert delay_from_message(message) == pytest.approx(seconds)


@pytest.mark.parametrize("message", ["", "Rate limit reached.", "try again in a while"])
def test_messages_without_a_delay(message: str) -> None:
    assert delay_from_message(message) is None


def test_backoff_doubles_up_to_the_cap_with_jitter_down() -> None:
    top = [backoff_delay(n, base=0.5, cap=4.0, rand=lambda: 0.0) for n in range(1, 7)]
    assert top == [0.5, 1.0, 2.0, 4.0, 4.0, 4.0]
    assert backoff_delay(2, base=0.5, cap=4.0, rand=lambda: 1.0) == 0.75


@given(st.integers(1, 200), st.floats(0, 1))
def test_backoff_is_always_within_bounds(attempt: int, r: float) -> None:
    delay = backoff_delay(attempt, base=0.5, cap=8.0, rand=lambda: r)
    assert 0.375 <= delay <= 8.0


@given(st.dictionaries(st.text(max_size=30), st.text(max_size=30)), st.text(max_size=80))
def test_never_crashes_on_arbitrary_input(headers: dict[str, str], message: str) -> None:
    delay = delay_from_headers(headers, now=NOW)
    assert delay is None or delay.seconds >= 0
    seconds = delay_from_message(message)
    assert seconds is None or seconds >= 0


def test_absurd_numbers_are_ignored_not_infinite() -> None:
    huge = "9" * 400
    assert delay_from_headers({"retry-after-ms": huge, "retry-after": "1"}, now=NOW) == RetryDelay(
        1.0, "retry-after"
    )
    assert delay_from_headers({"retry-after": huge}, now=NOW) is None
