"""Server-sent events framing (the HTML living-standard rules), both directions, pure.

``data`` lines are joined; ``id`` and ``retry`` are ignored. Comments are ignored unless the
decoder has ``comments=True``: then each is an event named :data:`COMMENT` (``: queued 3``)."""

from __future__ import annotations

from dataclasses import dataclass

COMMENT = ""
"""``SSEEvent.event`` of a comment line (only from ``SSEDecoder(comments=True)``)."""


@dataclass(slots=True)
class SSEEvent:
    """One dispatched event (``event``: "message" when unnamed); not frozen: one per event."""

    data: str
    event: str = "message"


def encode_event(data: str, event: str | None = None) -> bytes:
    """One SSE event as bytes; ``data`` may contain newlines."""
    head = f"event: {event}\n" if event else ""
    body = "".join(f"data: {line}\n" for line in data.split("\n"))
    return (head + body + "\n").encode()


class SSEDecoder:
    """Incremental decoder: feed lines without their line terminator."""

    __slots__ = ("_comments", "_data", "_event")

    def __init__(self, *, comments: bool = False) -> None:
        self._data: list[str] = []
        self._event = ""
        self._comments = comments

    def feed_line(self, line: str) -> SSEEvent | None:
        """Feed one line; returns the event that a blank line completes, if any."""
        if not line:
            if not self._data:
                self._event = ""
                return None
            event = SSEEvent("\n".join(self._data), self._event or "message")
            self._data = []
            self._event = ""
            return event
        if line[0] == ":":
            if self._comments:
                text = line[1:]
                return SSEEvent(text[1:] if text[:1] == " " else text, COMMENT)
            return None
        field, sep, value = line.partition(":")
        if sep and value[:1] == " ":
            value = value[1:]
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value
        return None
