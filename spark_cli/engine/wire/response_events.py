"""The event sequence of one Responses response, numbered, as JSON text ready to send: the
message item (output index 0) when there is text, then one ``function_call`` item per call."""

from __future__ import annotations

import json
import time
from typing import Any

from spark_cli.engine.wire import responses as wire
from spark_cli.engine.wire.responses import FUNCTION_CALL, CreateRequest, InputCall, WireError

Event = tuple[str, str]
"""``(event type, JSON text)``, ready for a WebSocket or SSE sink."""


def usage_object(input_tokens: int, output_tokens: int) -> dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input_tokens + output_tokens,
    }


def message_item(item_id: str, text: str | None, status: str) -> dict[str, Any]:
    """The assistant message output item; ``text=None`` means no content part yet."""
    content = [] if text is None else [output_text_part(text)]
    return {"id": item_id, "type": "message", "role": "assistant", "status": status,
            "content": content}


def function_call_item(call: InputCall, status: str, arguments: str | None = None
                       ) -> dict[str, Any]:
    """A ``function_call`` output item; ``arguments`` in place of the call's own."""
    return {"id": call.item_id or "", "type": FUNCTION_CALL, "status": status,
            "arguments": call.arguments if arguments is None else arguments,
            "call_id": call.call_id, "name": call.name}


def output_text_part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def error_event(error: WireError, sequence_number: int, stream_id: str | None = None) -> str:
    """An ``error`` event (code and message at the top level too, as the SDK reads them)."""
    body = error.body()
    if error.headers:
        body["headers"] = error.headers
    event: dict[str, Any] = {"type": wire.ERROR, "status": error.status, "error": body,
                             "code": error.code, "message": error.message,
                             "param": error.param, "sequence_number": sequence_number}
    if stream_id is not None:
        event["stream_id"] = stream_id
    return json.dumps(event)


class ResponseEvents:
    """The events of one response to ``request`` (a ``response.create`` or an HTTP body)."""

    __slots__ = ("_args", "_calls", "_current", "_delta_head", "_delta_tail", "_echo",
                 "_text", "_text_open", "created_at", "item_id", "previous_response_id",
                 "request", "response_id", "seq")

    def __init__(self, response_id: str, request: CreateRequest, *,
                 previous_response_id: str | None = None, stream_id: str | None = None) -> None:
        self.response_id = response_id
        self.request = request
        self.previous_response_id = previous_response_id
        self._text: str | None = None
        """None: no message item yet; else its text (complete once closed)."""
        self._text_open = False
        self._calls: list[tuple[InputCall, str]] = []
        """The calls made, each with its item's status."""
        self._current: InputCall | None = None
        self._args: list[str] = []
        self.item_id = "msg_" + response_id.removeprefix("resp_")
        self.created_at = int(time.time())
        self.seq = 0
        self._echo = {} if stream_id is None else {"stream_id": stream_id}
        self._delta_head = (
            '{"type":"response.output_text.delta","item_id":"' + self.item_id
            + '","output_index":0,"content_index":0,"logprobs":[],"delta":'
        )
        tail = "" if stream_id is None else ',"stream_id":' + json.dumps(stream_id)
        self._delta_tail = tail + "}"

    def _next(self) -> int:
        seq = self.seq
        self.seq = seq + 1
        return seq

    def _event(self, kind: str, fields: dict[str, Any]) -> Event:
        fields["type"] = kind
        fields["sequence_number"] = self._next()
        fields.update(self._echo)
        return kind, json.dumps(fields)

    def response(
        self,
        status: str,
        text: str | None = None,
        *,
        usage: dict[str, Any] | None = None,
        reason: str | None = None,
        error: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The response object (``text=None``: no message item)."""
        request = self.request
        item_status = "completed" if status == "completed" else "incomplete"
        output = [] if text is None else [message_item(self.item_id, text, item_status)]
        output += [function_call_item(c, s) for c, s in self._calls]
        return {
            "id": self.response_id, "object": "response", "created_at": self.created_at,
            "status": status, "model": request.model, "output": output,
            "instructions": request.instructions or None,
            "previous_response_id": self.previous_response_id,
            "max_output_tokens": request.max_output_tokens,
            "incomplete_details": None if reason is None else {"reason": reason},
            "error": error, "usage": usage,
            "parallel_tool_calls": request.parallel_tool_calls and bool(request.tools),
            "tool_choice": request.tool_choice.mode if request.tools else "none",
            "tools": [{"type": "function", "name": t.name, "description": t.description,
                       "parameters": t.parameters, "strict": False} for t in request.tools],
            "metadata": {}, "temperature": None,
            "top_p": None, "text": {"format": {"type": "text"}}, "truncation": "disabled",
        }

    def created(self, status: str = "in_progress") -> Event:
        return self._event(wire.CREATED, {"response": self.response(status)})

    def queued(self, position: int) -> Event:
        """Extension field ``position`` (1 = next to start)."""
        return self._event(
            wire.QUEUED, {"position": position, "response": self.response("queued")}
        )

    def started(self) -> list[Event]:
        """``response.in_progress`` (the message item opens with :meth:`text_opened`)."""
        return [self._event(wire.IN_PROGRESS, {"response": self.response("in_progress")})]

    def text_opened(self) -> list[Event]:
        """``output_item.added`` (the message) and ``content_part.added``."""
        self._text, self._text_open = "", True
        return [
            self._event(wire.ITEM_ADDED, {
                "output_index": 0,
                "item": message_item(self.item_id, None, "in_progress"),
            }),
            self._event(wire.PART_ADDED, {
                "item_id": self.item_id, "output_index": 0, "content_index": 0,
                "part": output_text_part(""),
            }),
        ]

    def delta(self, text: str) -> Event:
        return wire.TEXT_DELTA, (
            self._delta_head + json.dumps(text) + ',"sequence_number":' + str(self._next())
            + self._delta_tail
        )

    def text_closed(self, text: str, status: str = "completed") -> list[Event]:
        """``output_text.done``, ``content_part.done``, ``output_item.done`` (the message)."""
        self._text, self._text_open = text, False
        item_status = "completed" if status == "completed" else "incomplete"
        part_fields = {"item_id": self.item_id, "output_index": 0, "content_index": 0}
        return [
            self._event(wire.TEXT_DONE, {**part_fields, "text": text, "logprobs": []}),
            self._event(wire.PART_DONE, {**part_fields, "part": output_text_part(text)}),
            self._event(wire.ITEM_DONE, {
                "output_index": 0, "item": message_item(self.item_id, text, item_status),
            }),
        ]

    def _index(self) -> int:
        """The output index of the call being made."""
        return len(self._calls) + (self._text is not None)

    def call_opened(self, call: InputCall) -> list[Event]:
        """``output_item.added`` with the ``function_call`` item, its arguments empty."""
        self._current, self._args = call, []
        item = function_call_item(call, "in_progress", "")
        return [self._event(wire.ITEM_ADDED, {"output_index": self._index(), "item": item})]

    def call_delta(self, piece: str) -> Event:
        """``response.function_call_arguments.delta``: one piece of the arguments."""
        assert self._current is not None
        self._args.append(piece)
        return self._event(wire.ARGS_DELTA, {"item_id": self._current.item_id,
                                             "output_index": self._index(), "delta": piece})

    def call_closed(self) -> list[Event]:
        """``…arguments.done`` and ``output_item.done`` (status ``completed``)."""
        call = self._current
        assert call is not None
        index = self._index()
        item = function_call_item(call, "completed")
        events = [
            self._event(wire.ARGS_DONE, {"item_id": call.item_id, "output_index": index,
                                         "name": call.name, "arguments": call.arguments}),
            self._event(wire.ITEM_DONE, {"output_index": index, "item": item}),
        ]
        self._calls.append((call, "completed"))
        self._current = None
        return events

    def _call_cut(self) -> list[Event]:
        """A call the response stopped in: its item ends ``incomplete``, arguments as sent."""
        call = self._current
        assert call is not None
        index = self._index()
        cut = InputCall(call.call_id, call.name, "".join(self._args), call.item_id)
        self._calls.append((cut, "incomplete"))
        self._current = None
        item = function_call_item(cut, "incomplete")
        return [self._event(wire.ITEM_DONE, {"output_index": index, "item": item})]

    @property
    def calls(self) -> tuple[InputCall, ...]:
        """The calls made so far (a cut one with the arguments it got)."""
        return tuple(call for call, _ in self._calls)

    def finished(
        self, text: str, status: str, usage: dict[str, Any], reason: str | None = None
    ) -> list[Event]:
        """Close what is open, then the terminal event (no item at all: an empty message)."""
        events: list[Event] = []
        if self._current is not None:
            events += self._call_cut()
        elif self._text_open or (self._text is None and not self._calls):
            if self._text is None:
                events += self.text_opened()
            events += self.text_closed(text, status)
        kind = wire.COMPLETED if status == "completed" else wire.INCOMPLETE
        events.append(self._event(kind, {"response": self.response(
            status, self._text, usage=usage, reason=reason)}))
        return events

    def empty_completion(self, usage: dict[str, Any]) -> Event:
        """Terminal event of a warm-up (``generate: false``): no output at all."""
        body = self.response("completed", usage=usage)
        return self._event(wire.COMPLETED, {"response": body})

    def failed(self, code: str, message: str, usage: dict[str, Any]) -> Event:
        body = self.response("failed", usage=usage, error={"code": code, "message": message})
        return self._event(wire.FAILED, {"response": body})

    def steer_accepted(self, steer_id: str) -> Event:
        return self._event(wire.STEER_ACCEPTED, {
            "steer": {"id": steer_id, "previous_response_id": self.response_id},
        })
