"""Chat Completions over HTTP SSE: Cerebras, vLLM, Ollama, llama.cpp, OpenRouter, Groq, OpenAI.

All speak the same wire: ``stream: true`` with ``stream_options.include_usage``,
``data:`` chunks carrying ``choices[0].delta.content``, an optional final usage
chunk (Cerebras adds ``time_info``, beside ``usage`` or inside it: it is carried
in :class:`UsageReported`), error chunks (``{"error": {...}}`` in a data line)
and ``data: [DONE]``. Optional fields are read when present; there are no
per-provider special cases.
"""

from __future__ import annotations

import dataclasses
import json
import time
from typing import Any, ClassVar

from spark_cli.protocol.channel import (
    ChannelError,
    ChannelEvent,
    ResponseStarted,
    TextDelta,
    TurnFinished,
    TurnRequest,
    UsageReported,
)
from spark_cli.protocol.secrets import NO_SECRETS, Secrets
from spark_cli.protocol.sse import SSEEvent
from spark_cli.transport.errors import provider_error
from spark_cli.transport.sse.http_bodies import CHAT_PATH, chat_body
from spark_cli.transport.sse.http_stream import HttpStreamChannel

DONE = "[DONE]"
_FINISH = {"stop": None, "length": "max_output_tokens"}


class ChatFold:
    """One Chat Completions stream, chunk by chunk."""

    __slots__ = (
        "_secrets",
        "chars",
        "deltas",
        "finish_reason",
        "finished",
        "held",
        "response_id",
        "started",
        "time_info",
        "usage",
    )

    def __init__(self, secrets: Secrets = NO_SECRETS) -> None:
        self._secrets = secrets
        self.deltas = 0
        self.chars = 0
        """Characters of output so far."""
        self.finished: TurnFinished | None = None
        self.usage: UsageReported | None = None
        self.held: TextDelta | None = None
        self.started = False
        self.response_id: str | None = None
        self.finish_reason: str | None = None
        self.time_info: dict[str, float] | None = None
        """Cerebras' timing breakdown, when sent."""

    def feed(self, event: SSEEvent) -> ChannelEvent | None:
        data = event.data
        if data == DONE:
            self.finished = self._finish()
            return None
        try:
            chunk = json.loads(data)
        except ValueError:
            raise ChannelError(
                "protocol", f"malformed chunk from the server: {data[:80]!r}"
            ) from None
        if type(chunk) is not dict:
            raise ChannelError("protocol", f"malformed chunk from the server: {data[:80]!r}")
        out: ChannelEvent | None = None
        choices = chunk.get("choices")
        if choices and type(choices) is list and type(choices[0]) is dict:
            choice = choices[0]
            delta = choice.get("delta")
            if type(delta) is dict:
                content = delta.get("content")
                if type(content) is str and content:
                    self.deltas += 1
                    self.chars += len(content)
                    out = TextDelta(content)
            reason = choice.get("finish_reason")
            if type(reason) is str:
                self.finish_reason = reason
        elif "error" in chunk:
            raise self._error(chunk["error"])
        usage = chunk.get("usage")
        if usage is None and "x_groq" in chunk and type(chunk["x_groq"]) is dict:
            usage = chunk["x_groq"].get("usage")  # Groq's older place for it
        time_info = chunk.get("time_info")
        if type(usage) is dict:
            if type(time_info) is not dict:
                time_info = usage.get("time_info")
            self.usage = UsageReported(
                _int(usage.get("prompt_tokens")), _int(usage.get("completion_tokens"))
            )
        if type(time_info) is dict:
            self.time_info = {k: float(v) for k, v in time_info.items()
                              if type(v) in (int, float)}
        if self.usage is not None and self.time_info is not None:
            self.usage = dataclasses.replace(self.usage, time_info=self.time_info)
        if not self.started:
            self.started = True
            rid = chunk.get("id")
            self.response_id = rid if type(rid) is str else None
            self.held = out if type(out) is TextDelta else None
            return ResponseStarted(self.response_id, time.perf_counter())
        return out

    def at_eof(self) -> TurnFinished | None:
        if self.finished is not None:
            return self.finished
        if self.finish_reason is not None:
            return self._finish()
        return None

    def _finish(self) -> TurnFinished:
        reason = self.finish_reason
        if reason is None or reason in ("stop", "tool_calls", "function_call"):
            return TurnFinished("completed", None, self.response_id)
        return TurnFinished("incomplete", _FINISH.get(reason, reason), self.response_id)

    def _error(self, error: object) -> ChannelError:
        if not isinstance(error, dict):
            error = {"message": str(error)}
        status = error.get("status") or error.get("code")
        return provider_error(status if type(status) is int else None, error,
                              secrets=self._secrets)


class ChatCompletionsChannel(HttpStreamChannel):
    """A Channel over ``POST {base_url}/chat/completions`` with ``stream: true``."""

    path: ClassVar[str] = CHAT_PATH

    def _body(self, request: TurnRequest) -> dict[str, Any]:
        return chat_body(request, self._model)

    def _fold(self) -> ChatFold:
        return ChatFold(self._secrets)


def _int(value: object) -> int:
    return value if type(value) is int else 0
