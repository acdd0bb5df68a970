"""Each server's context-overflow answer, recognised and named with both sizes.

Servers say "too long for my window" in their own words; spark says one thing:
"the request (9.5k tokens) is larger than the model's window (8.2k)", never
retries it as it is (the same request overflows again), and hands the figures on
(:class:`~spark_cli.protocol.channel.Overflow`) so the session can trim and learn the
window. Shapes (status, then the error object or text):
"""

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
    """The overflow ``status`` / ``code`` / ``message`` (and the error object's extra
    fields) describe, or None when the answer is about something else.

    - OpenAI (Chat and Responses), Cerebras: code ``context_length_exceeded``, "This model's
      maximum context length is 128000 tokens. However, your messages resulted in 130000
      tokens" / "Your input exceeds the context window of this model".
    - llama.cpp ``llama-server``: 400, type ``exceed_context_size_error``, "the request
      exceeds the available context size, try increasing it", with ``n_prompt_tokens`` and
      ``n_ctx`` beside the message.
    - llama-cpp-python's server: 400 ``context_length_exceeded`` "This model's maximum context
      length is 8192 tokens. However, you requested 9510 tokens (9510 in the messages, 0 in the
      completion)" (its own ``ValueError``: "Requested tokens (9510) exceed context window of
      8192").
    - vLLM: 400 "This model's maximum context length is 32768 tokens. However, you requested
      33000 tokens (...)", or "... and your request has 5000 input tokens (8192 > 8192 - 5000)".
    - Ollama: 400 "the input length exceeds the context length"; LM Studio: "... the model is
      loaded with context length of only 4096 tokens ..." / "greater than the context length"."""
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
    """The request (N tokens) is larger than the model's window (M): both sizes where known;
    ``estimated`` (spark's own count) stands in for a request size the server did not say."""
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
    """The overflow as a ``context_length`` error (never retried as it is): spark's
    sentence with both sizes where known, then what the server said (already masked)."""
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
