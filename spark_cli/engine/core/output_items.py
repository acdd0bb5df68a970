"""What one response puts on the wire, in order: its message item, then its function calls
(one argument delta per piece; a :data:`Presenter` builds the events of either wire), and
where a steer may stop it (:class:`SafePoints`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from spark_cli.engine.core.pieces import CallStart, Piece
from spark_cli.engine.wire.chat import ChatEvents
from spark_cli.engine.wire.response_events import Event, ResponseEvents
from spark_cli.engine.wire.responses import InputCall

Presenter = ResponseEvents | ChatEvents
Send = Callable[[Event], Awaitable[None]]
_FENCE = "```"
_SEARCH = "<<<<<<< SEARCH"
_REPLACE = ">>>>>>> REPLACE"
_BEGIN = "*** Begin Patch"
_END = "*** End Patch"
_HEAD = 24
"""Only a line's first characters decide its kind."""
STEER_GRACE_TOKENS = 256
"""A steer waits at most this many tokens for a safe point, then stops at the frame."""


class SafePoints:
    """Where a steered response may stop: a line boundary outside any fence, SEARCH/REPLACE
    block or patch envelope (no half edits), or, after ``STEER_GRACE_TOKENS``, the frame."""

    __slots__ = ("_block", "_fence", "_head", "_patch", "_waited")

    def __init__(self) -> None:
        self._fence = False
        self._block = False
        self._patch = False
        self._head = ""
        self._waited = 0
        """Tokens sent while a steer waited (see ``STEER_GRACE_TOKENS``)."""

    @property
    def at_line_start(self) -> bool:
        """True when the text so far ends with a newline (or is empty)."""
        return not self._head

    @property
    def outside(self) -> bool:
        """True between lines that are not inside a fence or an edit block."""
        return not (self._fence or self._block or self._patch)

    def _line_done(self, line: str) -> None:
        stripped = line.strip()
        if stripped.startswith(_FENCE):
            self._fence = not self._fence
        elif stripped.startswith(_SEARCH):
            self._block = True
        elif stripped.startswith(_REPLACE):
            self._block = False
        elif stripped.startswith(_BEGIN):
            self._patch = True
        elif stripped.startswith(_END):
            self._patch = False

    def feed(self, text: str, *, want_cut: bool = False) -> int | None:
        """Track ``text``; with ``want_cut``, the offset after its first safe newline."""
        start = 0
        while True:
            newline = text.find("\n", start)
            if newline < 0:
                if len(self._head) < _HEAD:
                    self._head += text[start : start + _HEAD]
                return None
            line = self._head + text[start : min(newline, start + _HEAD)]
            self._head = ""
            self._line_done(line)
            start = newline + 1
            if want_cut and self.outside:
                return start

    def steer_cut(self, pieces: list[str], text: str) -> tuple[int, str] | None:
        """(pieces, text) of the frame up to a waiting steer's cut; None: send it all, wait."""
        self._waited += len(pieces)
        cut = self.feed(text, want_cut=True)
        if cut is None:
            return (len(pieces), text) if self._waited >= STEER_GRACE_TOKENS else None
        total = 0
        for count, piece in enumerate(pieces, 1):
            total += len(piece)
            if total >= cut:
                return count, text[:cut]
        return len(pieces), text[:cut]


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
