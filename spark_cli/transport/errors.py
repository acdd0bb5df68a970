"""Provider errors and failures to connect as ChannelError values: one mapping for every
channel (:func:`kind_for`), each message naming where the request went, keys masked."""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from spark_cli.protocol.channel import ChannelError, ErrorKind
from spark_cli.protocol.ratelimits import RetryDelay, delay_from_headers, delay_from_message
from spark_cli.protocol.secrets import NO_SECRETS, Secrets, mask_url, mask_urls_in
from spark_cli.transport.window.overflow import overflow_error
from spark_cli.transport.window.overflow import recognise as recognise_overflow


class ProviderError(ChannelError):
    """A ChannelError from the provider's answer (:func:`provider_error`)."""

    retry_after: RetryDelay | None = None
    """The wait the provider asked for (its headers or its message), if any."""


def masked(error: ChannelError, secrets: Secrets) -> ChannelError:
    """``error`` with every secret masked in its message (in place; returned for ``raise``)."""
    if secrets:
        message = secrets.mask(error.message)
        if message != error.message:
            error.message = message
            error.args = (message,)
    return error


def output_so_far(chars: int) -> str:
    """How much output had arrived: characters, and tokens estimated at ~4 characters each."""
    if chars <= 0:
        return "before any output"
    tokens = max(1, round(chars / 4))
    return (f"after {chars:,} character{'s' if chars != 1 else ''} of output "
            f"(about {tokens:,} token{'s' if tokens != 1 else ''})")


_RESOLVE_WORDS = ("name or service not known", "nodename nor servname", "getaddrinfo failed",
                  "no address associated with hostname", "temporary failure in name resolution")


def name_resolution_failure(exc: BaseException) -> BaseException | None:
    """The DNS failure behind ``exc``, if that is what it is (never retried)."""
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


def unreachable_error(url: str, exc: BaseException, secrets: Secrets) -> ChannelError:
    """Connecting to ``url`` failed: retryable, unless the host name does not resolve."""
    shown = mask_url(url)
    dns = name_resolution_failure(exc)
    if dns is not None:
        host = urlsplit(url).hostname or shown
        return ChannelError(
            "connection", f"cannot resolve the host {host!r} of {shown} ({dns}); check the "
            "base URL")
    detail = mask_urls_in(secrets.mask(str(exc) or type(exc).__name__), url)
    return ChannelError("connection", f"cannot connect to {shown}: {detail}", retryable=True)


_H11_STATUS = re.compile(r"illegal status line: bytearray\((b'.*'|b\".*\")\)", re.S)
_WS_STATUS = ("invalid HTTP status line: ", "unsupported protocol; expected HTTP/1.1: ")
SHOWN_BYTES = 60
"""How much of a non-HTTP answer is quoted (printable characters only)."""


def non_http_answer(exc: BaseException) -> str | None:
    """What a server that does not speak HTTP sent first, as httpx (h11) or websockets quote it."""
    for current in (exc, exc.__cause__):
        if current is None:
            continue
        text = str(current)
        match = _H11_STATUS.search(text)
        if match:
            import ast  # deferred: launch -> request

            try:
                raw = ast.literal_eval(match.group(1))
            except (ValueError, SyntaxError):
                return text
            return bytes(raw).decode("utf-8", "replace")
        for prefix in _WS_STATUS:
            if text.startswith(prefix):
                return text[len(prefix):]
    return None


def http10_status(sent: str | None) -> int | None:
    """The status of an ``HTTP/1.0 404 Not Found`` line (websockets refuses HTTP/1.0), else None."""
    if sent is None or not sent.startswith("HTTP/1.0 "):
        return None
    word = sent[9:12]
    return int(word) if word.isdigit() and len(word) == 3 else None


def not_http_error(url: str, sent: str, secrets: Secrets) -> ChannelError:
    """The server answered, but not in HTTP: never retried, what it sent quoted short."""
    shown = "".join(ch if ch.isprintable() else " " for ch in secrets.mask(sent)).strip()
    if len(shown) > SHOWN_BYTES:
        shown = shown[:SHOWN_BYTES] + "…"
    what = f"it sent {shown!r}" if shown else "its answer was empty"
    return ChannelError(
        "protocol", f"the server at {mask_url(url)} did not speak HTTP ({what}); check the "
        "base URL and its port")


def unanswered(url: str, exc: BaseException, secrets: Secrets) -> ChannelError | None:
    """The error for a server that answered but not in HTTP/1.1; None for other failures."""
    sent = non_http_answer(exc)
    status = http10_status(sent)
    if status is not None:
        return error_from_body(status, b"", secrets=secrets, url=url)
    return None if sent is None else not_http_error(url, sent, secrets)


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
    secrets: Secrets = NO_SECRETS,
    fallback: str = "",
    tools: bool = False,
    body: str = "",
    url: str | None = None,
) -> ProviderError:
    """A ProviderError from a status and an OpenAI-style ``error`` object, naming ``url``.

    ``tools``: the request declared tools (a refusal of them says to run ``--no-tools``)."""
    error = error or {}
    code = _text(error.get("code")) or _text(error.get("type")) or None
    raw_message = (_text(error.get("message")) or fallback
                   or (f"HTTP {status}" if status else "no details given"))
    overflow = recognise_overflow(status, code, raw_message, error)
    if overflow is not None:  # each server's words for it: named with both sizes
        return overflow_error(ProviderError, status, code, overflow, secrets.mask(raw_message))
    kind, retryable = kind_for(status, code)
    advice = ""
    if tools and kind in ("bad_request", "not_found") and rejects_tools(
            status, (raw_message, _text(error.get("param")), code or "", body)):
        kind, code = "bad_request", TOOLS_UNSUPPORTED
        raw_message = f"the model or server does not accept tools ({raw_message})"
        advice = "; run with --no-tools (or set tools = false in the config)"
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
    where = f" ({tried(url)})" if url else ""
    message = secrets.mask(f"{prefix}{_LABELS[kind]}{suffix}: {raw_message}{where}{advice}")
    made = ProviderError(kind, message, status=status, code=code, retryable=retryable)
    made.retry_after = delay
    return made


def error_from_body(
    status: int,
    body: bytes | str,
    *,
    headers: Mapping[str, str] | None = None,
    secrets: Secrets = NO_SECRETS,
    tools: bool = False,
    url: str | None = None,
) -> ProviderError:
    """A ProviderError from a non-2xx response body (JSON or not)."""
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
    return provider_error(status, error, headers=headers, secrets=secrets, fallback=fallback,
                          tools=tools, body=text if tools else "", url=url)


TOOLS_UNSUPPORTED = "tools_unsupported"
_TOOLS_REFUSED = re.compile(
    r"\btools\b|tool[_ ]choice|support(s|ed)? tool|tool[- ]call[- ]parser|--jinja"
    r"|function calling is not",
    re.I,
)
"""Words refusing the ``tools`` field; "tool" alone is not ("No tool output found ...")."""


def rejects_tools(status: int | None, texts: tuple[str, ...]) -> bool:
    """Whether a 400/404/422 (or status-less) answer's ``texts`` refuse the ``tools`` field."""
    if status not in (None, 400, 404, 422):
        return False
    return any(text and _TOOLS_REFUSED.search(text) for text in texts)


def endpoint(base_url: str, path: str) -> str:
    """The URL a POST of ``path`` under ``base_url`` goes to (its query left out)."""
    parts = urlsplit(base_url)
    joined = parts.path.rstrip("/") + "/" + path.lstrip("/")
    return f"{parts.scheme}://{parts.netloc}{joined}"


def tried(url: str) -> str:
    """``POST <url>`` (``GET`` for a WebSocket), userinfo and query masked."""
    method = "GET" if url.startswith(("ws://", "wss://")) else "POST"
    return f"{method} {mask_url(url.split('?', 1)[0])}"


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


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
