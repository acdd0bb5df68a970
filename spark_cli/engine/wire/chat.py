"""The Chat Completions wire as the bundled engine speaks it: :func:`parse_chat` checks a
request, :class:`ChatEvents` presents a generation as chunks (docs/engine.md)."""
from __future__ import annotations

import json
import time
from typing import Any

from spark_cli.engine.wire import responses as wire
from spark_cli.engine.wire.response_events import Event
from spark_cli.engine.wire.responses import (
    CreateRequest,
    InputCall,
    InputItem,
    InputMessage,
    InputOutput,
    WireError,
    parse_input,
)
from spark_cli.engine.wire.tool_defs import chat_function_specs, parse_tool_choice
from spark_cli.engine.wire.wire_errors import (
    INVALID_TYPE,
    bad_request,
    check_output_limit,
    missing,
    optional_field,
    string_field,
)

_TOLD = ("system", "developer")
"""The roles whose messages are the instructions (as the brains read them)."""


def _tool_calls(value: Any, where: str) -> list[InputCall]:
    """An assistant message's ``tool_calls`` (``{id, type, function: {name, arguments}}``)."""
    if not isinstance(value, list):
        raise bad_request(where, f"'{where}' must be a list", INVALID_TYPE)
    calls = []
    for j, call in enumerate(value):
        at = f"{where}[{j}]"
        if not isinstance(call, dict):
            raise bad_request(at, f"'{at}' must be an object", INVALID_TYPE)
        function = call.get("function")
        if not isinstance(function, dict):
            raise missing(f"{at}.function")
        arguments = {"arguments": "", **function}  # arguments may be left out
        calls.append(InputCall(string_field(call, "id", at),
                               string_field(function, "name", f"{at}.function"),
                               string_field(arguments, "arguments", f"{at}.function", empty=True)))
    return calls


def parse_messages(raw: list[Any]) -> tuple[InputItem, ...]:
    """Chat ``messages``: text, an assistant's ``tool_calls``, ``role: "tool"`` results."""
    items: list[InputItem] = []
    called: set[str] = set()
    for i, message in enumerate(raw):
        where = f"messages[{i}]"
        if not isinstance(message, dict):
            raise bad_request(where, f"'{where}' must be an object", INVALID_TYPE)
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if not isinstance(call_id, str) or not call_id:
                raise missing(f"{where}.tool_call_id")
            if call_id not in called:
                raise bad_request(f"{where}.role", "Invalid parameter: messages with role "
                                  "'tool' must be a response to a preceeding message with "
                                  "'tool_calls'.")
            if "content" not in message:
                raise missing(f"{where}.content")
            text = parse_input([{"role": "user", "content": message["content"]}], where)[0]
            assert isinstance(text, InputMessage)
            items.append(InputOutput(call_id, text.text))
        elif role == "assistant" and message.get("tool_calls") is not None:
            calls = _tool_calls(message["tool_calls"], f"{where}.tool_calls")
            content = message.get("content")
            if content is not None:
                items += parse_input([{"role": "assistant", "content": content}], where)
            items += calls
            called.update(call.call_id for call in calls)
        else:
            items += parse_input([message], "messages")
    return tuple(items)


def parse_chat(obj: dict[str, Any], maximum: int) -> tuple[CreateRequest, bool]:
    """A Chat body as a Responses request (system messages: instructions); usage asked?"""
    for param in ("max_completion_tokens", "max_tokens"):
        check_output_limit(obj.get(param), param, maximum)
    model = string_field(obj, "model")
    if "messages" not in obj:
        raise missing("messages")
    raw = obj["messages"]
    if not isinstance(raw, list) or not raw:
        raise bad_request("messages", "'messages' must be a non-empty list")
    messages = parse_messages(raw)
    stream = bool(optional_field(obj, "stream", bool, "a boolean"))
    options = obj.get("stream_options") or {}
    if not isinstance(options, dict):
        raise bad_request("stream_options", "'stream_options' must be an object", INVALID_TYPE)
    tools = chat_function_specs(obj["tools"]) if obj.get("tools") is not None else ()
    parallel = optional_field(obj, "parallel_tool_calls", bool, "a boolean")
    told = [m.text for m in messages if isinstance(m, InputMessage) and m.role in _TOLD]
    said = tuple(m for m in messages if not isinstance(m, InputMessage) or m.role not in _TOLD)
    return CreateRequest(
        model=model, input=said, instructions="\n\n".join(told), stream=stream,
        max_output_tokens=obj.get("max_completion_tokens", obj.get("max_tokens")), tools=tools,
        tool_choice=parse_tool_choice(obj.get("tool_choice"), chat=True),
        parallel_tool_calls=parallel is not False,
        seed=optional_field(obj, "seed", int, "an integer"),
    ), bool(options.get("include_usage"))


DATA = "data"
COMMENT = "comment"
SKIP = "skip"
ERROR = "error"
"""A ``data:`` chunk carrying an error (the response failed)."""
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
        error = WireError(500, code, message, kind="server_error")
        return ERROR, json.dumps({"error": error.body()})
