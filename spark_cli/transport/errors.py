"""Provider errors (HTTP status, error code, headers) turned into ChannelError values.

One mapping for every channel: 401/403 → auth, 429 → rate_limit (retryable,
with the delay its headers or message ask for) unless the code is
``insufficient_quota`` (quota, never retried), ``context_length_exceeded`` →
context_length (never retried), 404 → not_found, other 4xx → bad_request,
5xx → server (retryable). Messages never contain the API key.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from spark_cli.protocol.channel import ChannelError, ErrorKind
from spark_cli.protocol.ratelimits import RetryDelay, delay_from_headers, delay_from_message
from spark_cli.protocol.urls import mask_url, mask_urls_in

NOT_RETRYABLE_CODES = frozenset({"insufficient_quota", "context_length_exceeded"})


class ProviderError(ChannelError):
    """A ChannelError that may carry the wait the provider asked for."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        retryable: bool = False,
        retry_after: RetryDelay | None = None,
    ) -> None:
        super().__init__(kind, message, status=status, code=code, retryable=retryable)
        self.retry_after = retry_after


def redact(text: str, secret: str | None) -> str:
    """``text`` with every occurrence of ``secret`` (and its long tail) masked."""
    if not secret or len(secret) < 4:
        return text
    text = text.replace(secret, "***")
    tail = secret[-8:]
    if len(secret) >= 16 and tail in text:
        text = text.replace(tail, "***")
    return text


def output_so_far(chars: int) -> str:
    """How much of the answer had arrived, honestly: characters, and tokens as an estimate.

    A frame or chunk may carry one token or dozens, so frames are never called
    tokens. Tokens are estimated at ~4 characters each (``spark_cli.protocol.tokens``).
    """
    if chars <= 0:
        return "before any output"
    tokens = max(1, round(chars / 4))
    return (f"after {chars:,} character{'s' if chars != 1 else ''} of output "
            f"(about {tokens:,} token{'s' if tokens != 1 else ''})")


_RESOLVE_WORDS = ("name or service not known", "nodename nor servname", "getaddrinfo failed",
                  "no address associated with hostname", "temporary failure in name resolution")


def name_resolution_failure(exc: BaseException) -> BaseException | None:
    """The DNS failure (``socket.gaierror``) behind ``exc``, if that is what it is.

    Such a failure is not retried: a host name that does not resolve now will
    not resolve in a second either, and the user should fix the URL at once.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, socket.gaierror):
            return current
        if any(word in str(current).lower() for word in _RESOLVE_WORDS):
            return current
        current = current.__cause__ or current.__context__
    return None


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
        f"no data from the server for {idle:g}s {output_so_far(chars)} (idle timeout)",
        retryable=retryable,
    )


def unreachable_error(url: str, exc: BaseException, api_key: str | None) -> ChannelError:
    """Connecting to ``url`` failed: retryable, unless the host name does not resolve.

    The URL is shown with its userinfo masked; the key never appears.
    """
    shown = mask_url(url)
    dns = name_resolution_failure(exc)
    if dns is not None:
        host = urlsplit(url).hostname or shown
        return ChannelError(
            "connection", f"cannot resolve the host {host!r} of {shown} ({dns}); check the "
            "base URL")
    detail = mask_urls_in(redact(str(exc) or type(exc).__name__, api_key), url)
    return ChannelError("connection", f"cannot connect to {shown}: {detail}", retryable=True)


def kind_for(status: int | None, code: str | None) -> tuple[ErrorKind, bool]:
    """The error kind and whether retrying can help."""
    if code == "insufficient_quota":
        return "quota", False
    if code == "context_length_exceeded":
        return "context_length", False
    if code in ("rate_limit_exceeded", "rate_limit_error"):
        return "rate_limit", True
    if code == "server_error":
        return "server", True
    if status in (401, 403):
        return "auth", False
    if status == 429:
        return "rate_limit", True
    if status == 404:
        return "not_found", False
    if status == 408:
        return "timeout", True
    if status is not None and status >= 500:
        return "server", True
    if status is not None and 400 <= status < 500:
        return "bad_request", False
    return "server", False


def provider_error(
    status: int | None,
    error: Mapping[str, Any] | None,
    *,
    headers: Mapping[str, str] | None = None,
    api_key: str | None = None,
    fallback: str = "",
) -> ProviderError:
    """A ProviderError from an HTTP status and an OpenAI-style ``error`` object."""
    error = error or {}
    code = _text(error.get("code")) or _text(error.get("type")) or None
    raw_message = _text(error.get("message")) or fallback or _default_message(status)
    kind, retryable = kind_for(status, code)
    delay: RetryDelay | None = None
    if retryable:
        if headers:
            delay = delay_from_headers(headers, now=time.time())
        if delay is None:
            seconds = delay_from_message(raw_message)
            if seconds is not None:
                delay = RetryDelay(seconds, "message")
    prefix = f"{status} " if status else ""
    suffix = f" ({code})" if code else ""
    message = redact(f"{prefix}{_LABELS[kind]}{suffix}: {raw_message}", api_key)
    return ProviderError(
        kind, message, status=status, code=code, retryable=retryable, retry_after=delay
    )


def error_from_body(
    status: int,
    body: bytes | str,
    *,
    headers: Mapping[str, str] | None = None,
    api_key: str | None = None,
) -> ProviderError:
    """A ProviderError from a non-2xx HTTP response body (JSON or not)."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    error: Mapping[str, Any] | None = None
    try:
        parsed = json.loads(text) if text.strip() else None
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        inner = parsed.get("error", parsed)
        if isinstance(inner, dict):
            error = inner
        elif isinstance(inner, str):
            error = {"message": inner}
    fallback = text.strip()[:200] if error is None else ""
    return provider_error(status, error, headers=headers, api_key=api_key, fallback=fallback)


_LABELS: dict[ErrorKind, str] = {
    "auth": "authentication failed",
    "rate_limit": "rate limited",
    "quota": "quota exhausted",
    "context_length": "request too long for the model's context",
    "bad_request": "request rejected",
    "not_found": "not found",
    "server": "provider error",
    "connection": "connection failed",
    "timeout": "timed out",
    "protocol": "protocol error",
}


def _default_message(status: int | None) -> str:
    return f"HTTP {status}" if status else "no details given"


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
