"""The Chat Completions presentation of one generation (SSE ``data:`` chunks).

Implements the :class:`spark_cli.engine.core.generation.Presenter` methods with
``chat.completion.chunk`` objects: a role chunk, one chunk per frame, a
finish chunk, the usage chunk when ``stream_options.include_usage`` asked for
it (with Cerebras-style ``time_info``), then ``[DONE]``. Queue positions become
SSE comments (``: queued 3``), which clients ignore. A function call is a chunk
with ``delta.tool_calls`` (``index``, ``id``, ``type``, the name, empty arguments),
then one chunk per piece of its arguments; the choice then ends ``tool_calls``.
"""

from __future__ import annotations

import json
import time
from typing import Any

from spark_cli.engine.wire import responses as wire
from spark_cli.engine.wire.responses import InputCall

DATA = "data"
COMMENT = "comment"
SKIP = "skip"
ERROR = "error"
"""A ``data:`` chunk carrying an error (the response failed)."""
Event = tuple[str, str]
DONE = "[DONE]"


class ChatEvents:
    """One completion's chunks; ``delta`` fills a preformatted template."""

    def __init__(self, completion_id: str, model: str, *, include_usage: bool) -> None:
        self.id, self.model, self._stamp = completion_id, model, int(time.time())
        self._head = ('{"id":"' + completion_id + '","object":"chat.completion.chunk","created":'
                      + str(self._stamp) + ',"model":' + json.dumps(model)
                      + ',"choices":[{"index":0,"delta":{"content":')
        self._tail = '},"logprobs":null,"finish_reason":null}]}'
        self.include_usage = include_usage
        self._created = time.monotonic()
        self._started = self._created
        self.final: dict[str, Any] | None = None
        """The non-streamed ``chat.completion`` object, once finished."""
        self._calls: list[InputCall] = []
        self._current: InputCall | None = None
        self._args: list[str] = []

    def _chunk(self, delta: dict[str, Any] | None, finish: str | None = None,
               **extra: Any) -> str:
        choices = [] if delta is None else [{"index": 0, "delta": delta, "logprobs": None,
                                             "finish_reason": finish}]
        return json.dumps({"id": self.id, "object": "chat.completion.chunk",
                           "created": self._stamp, "model": self.model, "choices": choices,
                           **extra})

    def created(self, status: str = "in_progress") -> Event:
        return SKIP, ""

    def queued(self, position: int) -> Event:
        return COMMENT, f"queued {position}"

    def started(self) -> list[Event]:
        self._started = time.monotonic()
        return [(DATA, self._chunk({"role": "assistant", "content": ""}))]

    def text_opened(self) -> list[Event]:
        return []

    def delta(self, text: str) -> Event:
        return DATA, self._head + json.dumps(text) + self._tail

    def text_closed(self, text: str, status: str = "completed") -> list[Event]:
        return []

    def call_opened(self, call: InputCall) -> list[Event]:
        self._current, self._args = call, []
        return [(DATA, self._chunk({"tool_calls": [{
            "index": len(self._calls), "id": call.call_id, "type": "function",
            "function": {"name": call.name, "arguments": ""}}]}))]

    def call_delta(self, piece: str) -> Event:
        self._args.append(piece)
        return DATA, self._chunk({"tool_calls": [{"index": len(self._calls),
                                                  "function": {"arguments": piece}}]})

    def call_closed(self) -> list[Event]:
        assert self._current is not None
        self._calls.append(self._current)
        self._current = None
        return []

    @property
    def calls(self) -> tuple[InputCall, ...]:
        return tuple(self._calls)

    def _usage(self, usage: dict[str, Any]) -> dict[str, Any]:
        now = time.monotonic()
        prompt, completion = usage["input_tokens"], usage["output_tokens"]
        return {"prompt_tokens": prompt, "completion_tokens": completion,
                "total_tokens": prompt + completion,
                "time_info": {"queue_time": self._started - self._created, "prompt_time": 0.0,
                              "completion_time": now - self._started,
                              "total_time": now - self._created, "created": time.time()}}

    def finished(
        self, text: str, status: str, usage: dict[str, Any], reason: str | None = None
    ) -> list[Event]:
        if self._current is not None:  # cut short: the arguments it got
            call = self._current
            self._calls.append(InputCall(call.call_id, call.name, "".join(self._args)))
            self._current = None
        if reason == wire.REASON_MAX_OUTPUT_TOKENS:
            finish = "length"
        else:
            finish = "tool_calls" if self._calls else "stop"
        chat_usage = self._usage(usage)
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if self._calls:
            message = {"role": "assistant", "content": text or None, "tool_calls": [
                {"id": c.call_id, "type": "function",
                 "function": {"name": c.name, "arguments": c.arguments}} for c in self._calls]}
        self.final = {"id": self.id, "object": "chat.completion", "created": self._stamp,
                      "model": self.model, "usage": chat_usage,
                      "choices": [{"index": 0, "message": message, "logprobs": None,
                                   "finish_reason": finish}]}
        events = [(DATA, self._chunk({}, finish))]
        if self.include_usage:
            events.append((DATA, self._chunk(None, usage=chat_usage)))
        events.append((DATA, DONE))
        return events

    def failed(self, code: str, message: str, usage: dict[str, Any]) -> Event:
        error = wire.WireError(500, code, message, kind="server_error")
        return ERROR, json.dumps({"error": error.body()})
