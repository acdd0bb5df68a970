"""Each server's context-overflow answer, recognised and named with both sizes: never retried
as it is, its figures handed on (:class:`~spark_cli.protocol.channel.Overflow`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, TypeVar

from spark_cli.protocol.channel import ChannelError, Overflow
from spark_cli.protocol.tokens import kilo

_Error = TypeVar("_Error", bound=ChannelError)
CODES = frozenset({"context_length_exceeded", "exceed_context_size_error",
                   "context_window_exceeded", "string_above_max_length"})
_SAYS = re.compile(
    r"maximum context length|exceeds? (?:the )?(?:available )?context (?:size|window|length)|"
    r"context window of|context length of only|greater than the context length|"
    r"input length exceeds|prompt is too long|exceeds? the model's (?:context|maximum)|"
    r"too many tokens|reduce the length of the (?:messages|input|prompt)", re.I)
_WINDOW = (re.compile(r"maximum context length is (\d[\d,]*)", re.I),
           re.compile(r"context window of (\d[\d,]*)", re.I),
           re.compile(r"context length of only (\d[\d,]*)", re.I),
           re.compile(r"\bn_ctx\D{0,4}(\d+)", re.I))
_REQUESTED = (re.compile(r"you requested (\d[\d,]*) tokens", re.I),
              re.compile(r"resulted in (\d[\d,]*) tokens", re.I),
              re.compile(r"requested tokens \((\d+)\)", re.I),
              re.compile(r"request has (\d[\d,]*) input tokens", re.I),
              re.compile(r"n_prompt_tokens\D{0,4}(\d+)", re.I))


def _number(patterns: tuple[re.Pattern[str], ...], text: str) -> int | None:
    for pattern in patterns:
        match = pattern.search(text)
        if match:
            return int(match.group(1).replace(",", ""))
    return None


def _field(error: Mapping[str, Any], *names: str) -> int | None:
    for name in names:
        value = error.get(name)
        if type(value) is int and value > 0:
            return value
    return None


def recognise(status: int | None, code: str | None, message: str,
              error: Mapping[str, Any] | None = None) -> Overflow | None:
    """The overflow an answer describes, or None (each server's words: test_overflow.py)."""
    error = error or {}
    kind = error.get("type")
    coded = code in CODES or (isinstance(kind, str) and kind in CODES)
    if not coded and not _SAYS.search(message):
        return None
    if status is not None and status < 400 and not coded:
        return None
    window = _field(error, "n_ctx", "max_model_len", "context_length") or _number(_WINDOW,
                                                                                  message)
    requested = _field(error, "n_prompt_tokens", "prompt_tokens") or _number(_REQUESTED,
                                                                             message)
    return Overflow(requested, window)


def overflow_message(requested: int | None, window: int | None, *,
                     estimated: int | None = None) -> str:
    """"The request (N tokens) is larger than the model's window (M)", ``estimated`` standing in."""
    size = (f" ({kilo(requested)} tokens)" if requested is not None else
            f" (about {kilo(estimated)} tokens)" if estimated is not None else "")
    limit = f" ({kilo(window)})" if window is not None else ""
    return f"the request{size} is larger than the model's window{limit}"


SAID = "the server said"
"""What comes between spark's sentence and the server's own words."""
SAID_CHARS = 200
"""How much of the server's own words is quoted after spark's sentence."""


def overflow_error(kind: type[_Error], status: int | None, code: str | None,
                   overflow: Overflow, said: str) -> _Error:
    """The overflow as a ``context_length`` error: spark's sentence, then the server's (masked)."""
    quoted = said.strip()
    if len(quoted) > SAID_CHARS:
        quoted = quoted[:SAID_CHARS] + "…"
    prefix = f"{status} " if status else ""
    message = overflow_message(overflow.requested, overflow.window)
    if quoted:
        message += f"; {SAID} ({prefix.strip() or 'its words'}): {quoted}"
    error = kind("context_length", message, status=status, code=code)
    error.overflow = overflow
    return error
