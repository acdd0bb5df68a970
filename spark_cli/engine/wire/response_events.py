"""The event sequence of one Responses response, as JSON text ready to send.

:class:`ResponseEvents` numbers the events (``sequence_number`` is per
response), echoes ``stream_id``, and builds the response object the SDK parses.
Each method returns ``(event type, json text)`` so a WebSocket sink sends the
text and an SSE sink adds the ``event:`` line. The text delta is a
preformatted template: one ``json.dumps`` of the delta per frame.
"""

from __future__ import annotations

import json
import time
from typing import Any

from spark_cli.protocol import responses as wire

Event = tuple[str, str]


class ResponseEvents:
    __slots__ = ("_delta_head", "_delta_tail", "_echo", "created_at", "instructions",
                 "item_id", "max_output_tokens", "model", "previous_response_id",
                 "response_id", "seq", "stream_id")

    def __init__(
        self,
        response_id: str,
        model: str,
        *,
        stream_id: str | None = None,
        previous_response_id: str | None = None,
        instructions: str = "",
        max_output_tokens: int | None = None,
    ) -> None:
        self.response_id = response_id
        self.item_id = "msg_" + response_id.removeprefix("resp_")
        self.model = model
        self.stream_id = stream_id
        self.previous_response_id = previous_response_id
        self.instructions = instructions
        self.max_output_tokens = max_output_tokens
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
        """The response object (``text=None``: no output item yet)."""
        item_status = "completed" if status == "completed" else "incomplete"
        output = [] if text is None else [wire.message_item(self.item_id, text, item_status)]
        body: dict[str, Any] = {
            "id": self.response_id, "object": "response", "created_at": self.created_at,
            "status": status, "model": self.model, "output": output,
            "instructions": self.instructions or None,
            "previous_response_id": self.previous_response_id,
            "max_output_tokens": self.max_output_tokens,
            "incomplete_details": None if reason is None else {"reason": reason},
            "error": error, "usage": usage, "parallel_tool_calls": False,
            "tool_choice": "none", "tools": [], "metadata": {}, "temperature": None,
            "top_p": None, "text": {"format": {"type": "text"}}, "truncation": "disabled",
        }
        return body

    def created(self, status: str = "in_progress") -> Event:
        return self._event(wire.CREATED, {"response": self.response(status)})

    def queued(self, position: int) -> Event:
        """Extension field ``position`` (1 = next to start)."""
        return self._event(
            wire.QUEUED, {"position": position, "response": self.response("queued")}
        )

    def started(self) -> list[Event]:
        """``in_progress``, ``output_item.added``, ``content_part.added``."""
        return [
            self._event(wire.IN_PROGRESS, {"response": self.response("in_progress")}),
            self._event(wire.ITEM_ADDED, {
                "output_index": 0,
                "item": wire.message_item(self.item_id, None, "in_progress"),
            }),
            self._event(wire.PART_ADDED, {
                "item_id": self.item_id, "output_index": 0, "content_index": 0,
                "part": wire.output_text_part(""),
            }),
        ]

    def delta(self, text: str) -> Event:
        seq = self.seq
        self.seq = seq + 1
        return wire.TEXT_DELTA, (
            self._delta_head + json.dumps(text) + ',"sequence_number":' + str(seq)
            + self._delta_tail
        )

    def finished(
        self, text: str, status: str, usage: dict[str, Any], reason: str | None = None
    ) -> list[Event]:
        """Close the text, part and item, then the terminal event."""
        item_status = "completed" if status == "completed" else "incomplete"
        part_fields = {"item_id": self.item_id, "output_index": 0, "content_index": 0}
        kind = wire.COMPLETED if status == "completed" else wire.INCOMPLETE
        return [
            self._event(wire.TEXT_DONE, {**part_fields, "text": text, "logprobs": []}),
            self._event(wire.PART_DONE, {**part_fields, "part": wire.output_text_part(text)}),
            self._event(wire.ITEM_DONE, {
                "output_index": 0, "item": wire.message_item(self.item_id, text, item_status),
            }),
            self._event(kind, {"response": self.response(status, text, usage=usage,
                                                         reason=reason)}),
        ]

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
