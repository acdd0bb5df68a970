"""OpenAI Responses over HTTP SSE: ``POST {base_url}/responses``, folded by
:class:`ResponsesFold`; every turn sends the whole conversation with ``store: false``."""

from __future__ import annotations

import json
from typing import ClassVar

from spark_cli.protocol.channel import (
    ChannelError,
    ChannelEvent,
    TurnFinished,
)
from spark_cli.protocol.sse import SSEEvent
from spark_cli.transport.bodies import RESPONSES_PATH, responses_body
from spark_cli.transport.responses_fold import ResponsesFold
from spark_cli.transport.sse.http_stream import HttpStreamChannel


class ResponsesSSEFold(ResponsesFold):
    """A ResponsesFold fed with SSE events."""

    __slots__ = ()

    def feed(self, event: SSEEvent) -> ChannelEvent | None:
        try:
            data = json.loads(event.data)
        except ValueError:
            raise ChannelError(
                "protocol", f"malformed event from the server: {event.data[:80]!r}"
            ) from None
        if type(data) is dict and "type" not in data and event.event != "message":
            data["type"] = event.event
        return super().feed(data)

    def at_eof(self) -> TurnFinished | None:
        return self.finished


class ResponsesSSEChannel(HttpStreamChannel):
    """A Channel over the Responses API's HTTP streaming mode."""

    path: ClassVar[str] = RESPONSES_PATH
    body = responses_body
    fold = ResponsesSSEFold
