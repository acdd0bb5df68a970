"""What one response puts on the wire, in order: its message item, then its function calls
(one argument delta per piece); a :data:`Presenter` builds the events of either wire."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from spark_cli.engine.core.pieces import CallStart, Piece
from spark_cli.engine.core.safepoint import SafePoints
from spark_cli.engine.wire.chat import ChatEvents
from spark_cli.engine.wire.response_events import Event, ResponseEvents
from spark_cli.engine.wire.responses import InputCall

Presenter = ResponseEvents | ChatEvents
Send = Callable[[Event], Awaitable[None]]


class OutputItems:
    """The items of one response as its frames go out (text so far in :attr:`parts`)."""

    __slots__ = ("_events", "_new_id", "_send", "call_open", "in_calls", "parts", "text_open")

    def __init__(self, events: Presenter, send: Send, new_id: Callable[[str], str]) -> None:
        self._events = events
        self._send = send
        self._new_id = new_id
        self.parts: list[str] = []
        self.text_open = False
        self.in_calls = False
        """A call has begun: the text is over."""
        self.call_open = False
        """A call's arguments are streaming (a steer waits for its end)."""

    @property
    def at_call_boundary(self) -> bool:
        """Calls have begun and none is half sent: a safe point to stop at."""
        return self.in_calls and not self.call_open

    async def _all(self, events: list[Event]) -> None:
        for event in events:
            await self._send(event)

    async def open_text(self) -> None:
        self.text_open = True
        await self._all(self._events.text_opened())

    async def text(self, text: str) -> None:
        """One text delta (opening the message first when it is not open yet)."""
        if not self.text_open:
            await self.open_text()
        self.parts.append(text)
        await self._send(self._events.delta(text))

    async def _text_run(self, run: list[str], safe: SafePoints) -> None:
        if run:
            text = "".join(run)
            safe.feed(text)
            await self.text(text)

    async def frame(self, taken: list[Piece], safe: SafePoints) -> int:
        """A frame holding calls; returns the token pieces it held."""
        count = 0
        run: list[str] = []
        for piece in taken:
            if type(piece) is str:
                count += 1
                if self.in_calls:
                    await self._send(self._events.call_delta(piece))
                else:
                    run.append(piece)
                continue
            await self._text_run(run, safe)
            run = []
            if isinstance(piece, CallStart):
                if not self.in_calls and self.text_open:
                    await self._all(self._events.text_closed("".join(self.parts)))
                self.in_calls = self.call_open = True
                call = InputCall(self._new_id("call"), piece.name, piece.arguments,
                                 self._new_id("fc"))
                await self._all(self._events.call_opened(call))
            else:
                self.call_open = False
                await self._all(self._events.call_closed())
        await self._text_run(run, safe)
        return count
