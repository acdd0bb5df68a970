"""Chat Completions over HTTP SSE, one wire for every server (Cerebras, vLLM, Ollama, llama.cpp,
OpenRouter, Groq, OpenAI): optional fields read when present, no per-provider cases."""

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
    UsageReported,
)
from spark_cli.protocol.secrets import NO_SECRETS, Secrets
from spark_cli.protocol.sse import SSEEvent
from spark_cli.transport.bodies import CHAT_PATH, chat_body
from spark_cli.transport.errors import provider_error
from spark_cli.transport.reading import first_and_more
from spark_cli.transport.sse.chat_calls import ChatCalls
from spark_cli.transport.sse.http_stream import HttpStreamChannel

DONE = "[DONE]"
_FINISH = {"stop": None, "length": "max_output_tokens"}
_CUT = frozenset({"length", "content_filter"})
"""Finish reasons after which a streamed call's arguments may be cut short: not run."""


class ChatFold:
    """One Chat Completions stream, chunk by chunk (the text branch first).

    Calls complete at ``finish_reason`` ``tool_calls`` or ``stop`` (llama.cpp, Ollama), or at
    ``[DONE]`` without a reason; never at ``length`` (the arguments were cut)."""

    __slots__ = (
        "_secrets",
        "_tools",
        "calls",
        "chars",
        "deltas",
        "finish_reason",
        "finished",
        "more",
        "response_id",
        "started",
        "time_info",
        "usage",
    )

    def __init__(self, secrets: Secrets = NO_SECRETS, *, tools: bool = False) -> None:
        self._secrets = secrets
        self._tools = tools
        self.deltas = 0
        self.chars = 0
        self.finished: TurnFinished | None = None
        self.usage: UsageReported | None = None
        self.calls = ChatCalls()
        self.more: tuple[ChannelEvent, ...] = ()
        self.started = False
        self.response_id: str | None = None
        self.finish_reason: str | None = None
        self.time_info: dict[str, float] | None = None

    tentative: TurnFinished | None = None
    """Never set: no steering on this wire (the read machine asks)."""

    def feed(self, event: SSEEvent) -> ChannelEvent | None:
        # per token: the text delta is read inline; the rare parts (the end, errors,
        # usage, the first chunk, a finish reason) are their own methods
        data = event.data
        if data == DONE:
            return self._done()
        try:
            chunk = json.loads(data)
        except ValueError:
            raise ChannelError(
                "protocol", f"malformed chunk from the server: {data[:80]!r}"
            ) from None
        if type(chunk) is not dict:
            raise ChannelError("protocol", f"malformed chunk from the server: {data[:80]!r}")
        out: ChannelEvent | None = None
        calls: list[ChannelEvent] | None = None
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
                pieces = delta.get("tool_calls")
                if pieces:
                    calls = self.calls.feed(pieces)
            reason = choice.get("finish_reason")
            if type(reason) is str:
                calls = self._reason(reason, calls)
        elif "error" in chunk:
            raise self._error(chunk["error"])
        usage = chunk.get("usage")
        if usage is not None or "time_info" in chunk or "x_groq" in chunk:
            self._usage(chunk, usage)
        elif "timings" in chunk and self.usage is None:
            self._timings(chunk["timings"])
        if not self.started:
            return self._start(chunk, out, calls)
        if calls:
            return first_and_more(self, (out, *calls))
        return out

    def _done(self) -> ChannelEvent | None:
        """``[DONE]``: the turn is finished; calls with no finish reason complete now."""
        self.finished = self._finish()
        if self.calls and self.finish_reason is None:
            return first_and_more(self, self.calls.finish())  # no reason came: done now
        return None

    def _reason(self, reason: str, calls: list[ChannelEvent] | None) -> list[ChannelEvent] | None:
        """A finish reason: the calls complete with it unless it says they were cut."""
        self.finish_reason = reason
        if self.calls and reason not in _CUT:
            return [*(calls or ()), *self.calls.finish()]
        return calls

    def _usage(self, chunk: dict[str, Any], usage: object) -> None:
        """The token counts (``usage`` or Groq's ``x_groq.usage``) and Cerebras' ``time_info``."""
        if usage is None and "x_groq" in chunk and type(chunk["x_groq"]) is dict:
            usage = chunk["x_groq"].get("usage")  # Groq's older place for it
        time_info = chunk.get("time_info")
        if type(usage) is dict:
            if type(time_info) is not dict:
                time_info = usage.get("time_info")
            details = usage.get("prompt_tokens_details")
            self.usage = UsageReported(
                _int(usage.get("prompt_tokens")), _int(usage.get("completion_tokens")),
                cached_tokens=_int(details.get("cached_tokens")) if type(details) is dict
                else 0)
        if type(time_info) is dict:
            self.time_info = {k: float(v) for k, v in time_info.items()
                              if type(v) in (int, float)}
        if self.usage is not None and self.time_info is not None:
            self.usage = dataclasses.replace(self.usage, time_info=self.time_info)

    def _timings(self, timings: object) -> None:
        """llama.cpp's ``timings`` as the usage when it sent none."""
        if type(timings) is dict and "predicted_n" in timings:
            cached = _int(timings.get("cache_n"))
            self.usage = UsageReported(_int(timings.get("prompt_n")) + cached,
                                       _int(timings.get("predicted_n")), cached_tokens=cached)

    def _start(self, chunk: dict[str, Any], out: ChannelEvent | None,
               calls: list[ChannelEvent] | None) -> ChannelEvent | None:
        """The first chunk: the response starts (with the server's id) before its events."""
        self.started = True
        rid = chunk.get("id")
        self.response_id = rid if type(rid) is str else None
        started = ResponseStarted(self.response_id, time.perf_counter())
        return first_and_more(self, (started, out, *(calls or ())))

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
                              secrets=self._secrets, tools=self._tools)


class ChatCompletionsChannel(HttpStreamChannel):
    """A Channel over ``POST {base_url}/chat/completions`` with ``stream: true``."""

    path: ClassVar[str] = CHAT_PATH
    body = chat_body
    fold = ChatFold


def _int(value: object) -> int:
    return value if type(value) is int else 0
