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

import time
from typing import Any

from spark_cli.engine.wire import chat
from spark_cli.engine.wire import responses as wire
from spark_cli.engine.wire.responses import InputCall

DATA = "data"
COMMENT = "comment"
SKIP = "skip"
ERROR = "error"
"""A ``data:`` chunk carrying an error (the response failed)."""
Event = tuple[str, str]


class ChatEvents:
    def __init__(self, completion_id: str, model: str, *, include_usage: bool) -> None:
        self.chunks = chat.ChunkBuilder(completion_id, model, int(time.time()))
        self.include_usage = include_usage
        self._created = time.monotonic()
        self._started = self._created
        self.final: dict[str, Any] | None = None
        """The non-streamed ``chat.completion`` object, once finished."""
        self._calls: list[InputCall] = []
        self._current: InputCall | None = None
        self._args: list[str] = []

    def created(self, status: str = "in_progress") -> Event:
        return SKIP, ""

    def queued(self, position: int) -> Event:
        return COMMENT, f"queued {position}"

    def started(self) -> list[Event]:
        self._started = time.monotonic()
        return [(DATA, self.chunks.role())]

    def text_opened(self) -> list[Event]:
        return []

    def delta(self, text: str) -> Event:
        return DATA, self.chunks.delta(text)

    def text_closed(self, text: str, status: str = "completed") -> list[Event]:
        return []

    def call_opened(self, call: InputCall) -> list[Event]:
        self._current, self._args = call, []
        return [(DATA, self.chunks.call_start(len(self._calls), call.call_id, call.name))]

    def call_delta(self, piece: str) -> Event:
        self._args.append(piece)
        return DATA, self.chunks.call_delta(len(self._calls), piece)

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
        time_info = {
            "queue_time": self._started - self._created,
            "prompt_time": 0.0,
            "completion_time": now - self._started,
            "total_time": now - self._created,
            "created": time.time(),
        }
        return chat.usage_object(usage["input_tokens"], usage["output_tokens"], time_info)

    def finished(
        self, text: str, status: str, usage: dict[str, Any], reason: str | None = None
    ) -> list[Event]:
        if self._current is not None:  # cut short: the arguments it got
            call = self._current
            self._calls.append(InputCall(call.call_id, call.name, "".join(self._args)))
            self._current = None
        if reason == wire.REASON_MAX_OUTPUT_TOKENS:
            finish = chat.FINISH_LENGTH
        else:
            finish = chat.FINISH_TOOL_CALLS if self._calls else chat.FINISH_STOP
        chat_usage = self._usage(usage)
        self.final = self.chunks.completion(text, finish, chat_usage, tuple(self._calls))
        events = [(DATA, self.chunks.finish(finish))]
        if self.include_usage:
            events.append((DATA, self.chunks.usage(chat_usage)))
        events.append((DATA, chat.DONE))
        return events

    def failed(self, code: str, message: str, usage: dict[str, Any]) -> Event:
        return ERROR, chat.error_chunk(wire.WireError(500, code, message, kind="server_error"))
