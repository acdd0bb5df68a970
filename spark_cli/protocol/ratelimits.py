"""How long to wait before retrying a rate-limited or failed request: pure parsing.

Trusted in order: ``retry-after-ms``, ``retry-after``, ``x-ratelimit-reset-*``, "try again
in 1.2s" in the message, then capped backoff with jitter (``now`` and the random source given)."""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Mapping

from spark_cli.record import record

# patterns, compiled on first use (re's own cache): most runs never see a rate limit
_DURATION_PART = r"(\d+(?:\.\d+)?)(ms|h|m|s)"
_DURATION = r"(?:\d+(?:\.\d+)?(?:ms|h|m|s))+"
_PLAIN_SECONDS = r"\d+(?:\.\d+)?"
_TRY_AGAIN = (r"(?i)try again in\s+"
              r"((?:\d+(?:\.\d+)?\s*(?:ms|milliseconds?|h|m|s|seconds?|minutes?)\s*)+)")
_AMOUNT = r"(?i)(\d+(?:\.\d+)?)\s*([a-z]+)"
_WORD_UNITS = {"millisecond": "ms", "milliseconds": "ms", "second": "s", "seconds": "s",
               "minute": "m", "minutes": "m"}
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
_RESET_PREFIX = "x-ratelimit-reset-"
_REMAINING_PREFIX = "x-ratelimit-remaining-"


@record
class RetryDelay:
    """How long to wait before retrying, and where that figure came from."""

    seconds: float
    source: str
    """Where the figure came from, e.g. ``retry-after-ms`` or ``backoff``."""


def parse_duration(text: str) -> float | None:
    """Seconds in an OpenAI duration (``6m0s``, ``250ms``) or plain float seconds; else None."""
    text = text.strip()
    if re.fullmatch(_PLAIN_SECONDS, text):
        return _finite(float(text))
    if not re.fullmatch(_DURATION, text):
        return None
    total = sum(float(n) * _UNIT_SECONDS[unit] for n, unit in re.findall(_DURATION_PART, text))
    return _finite(total)


def parse_retry_after(value: str, *, now: float) -> float | None:
    """``retry-after``: delay seconds, or an HTTP date (``now`` is epoch seconds)."""
    value = value.strip()
    if re.fullmatch(_PLAIN_SECONDS, value):
        return _finite(float(value))
    from email.utils import parsedate_to_datetime  # deferred: launch -> request

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - now)


def delay_from_headers(headers: Mapping[str, str], *, now: float) -> RetryDelay | None:
    """The delay the headers ask for: the longest exhausted reset, else the shortest reset."""
    lower = {k.lower(): v for k, v in headers.items()}
    raw = lower.get("retry-after-ms")
    if raw is not None and re.fullmatch(_PLAIN_SECONDS, raw.strip()):
        millis = _finite(float(raw))
        if millis is not None:
            return RetryDelay(millis / 1000.0, "retry-after-ms")
    raw = lower.get("retry-after")
    if raw is not None:
        seconds = parse_retry_after(raw, now=now)
        if seconds is not None:
            return RetryDelay(seconds, "retry-after")
    return _delay_from_resets(lower)


def _delay_from_resets(lower: Mapping[str, str]) -> RetryDelay | None:
    exhausted: list[tuple[float, str]] = []
    others: list[tuple[float, str]] = []
    for key, value in lower.items():
        if not key.startswith(_RESET_PREFIX):
            continue
        seconds = parse_duration(value)
        if seconds is None:
            continue
        remaining = lower.get(_REMAINING_PREFIX + key[len(_RESET_PREFIX) :], "").strip()
        (exhausted if remaining == "0" else others).append((seconds, key))
    if not (exhausted or others):
        return None
    seconds, key = max(exhausted) if exhausted else min(others)
    return RetryDelay(seconds, key)


def delay_from_message(message: str) -> float | None:
    """Seconds from "Please try again in 1.2s" / "in 20ms" / "in 6m0s" / "in 2 seconds"."""
    match = re.search(_TRY_AGAIN, message)
    if match is None:
        return None
    text = match.group(1)
    total = 0.0
    for number, unit in re.findall(_AMOUNT, text):
        unit = _WORD_UNITS.get(unit.lower(), unit.lower())
        if unit not in _UNIT_SECONDS:
            return None
        total += float(number) * _UNIT_SECONDS[unit]
    return _finite(total)


def backoff_delay(attempt: int, *, base: float = 0.5, cap: float = 8.0,
                  rand: Callable[[], float] = random.random) -> float:
    """Exponential backoff for ``attempt`` (1-based), capped, with up to a quarter jitter down."""
    ceiling = min(cap, base * (2.0 ** max(0, attempt - 1)))
    return ceiling * (1.0 - 0.25 * rand())


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) and value >= 0 else None
