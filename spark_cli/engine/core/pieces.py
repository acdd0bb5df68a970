"""Turning a brain's text chunks into token pieces lazily, in order, off the event loop (the
count does not depend on the chunking); input tokens are counted here too."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterable, Iterator
from concurrent.futures import Executor

from spark_cli.engine.brains.base import BrainCall, BrainRequest
from spark_cli.protocol.tokens import split_pieces
from spark_cli.record import record

Offload = Callable[[Callable[[], None]], Awaitable[None]]
"""Runs a blocking function off the event loop (e.g. ``loop.run_in_executor``)."""
SLICE = 65_536
"""Characters split at once, so one ``findall`` holds the GIL only briefly."""
BATCH = 512
"""Pieces an offloaded pull gathers at least (each trip to the pool costs wake-ups)."""
INLINE_COUNT_CHARS = 65_536
"""Inputs up to this size are counted on the event loop (well under a millisecond)."""


@record
class CallStart:
    """A function call begins: its name and whole arguments (its pieces follow)."""

    name: str
    arguments: str


@record
class CallEnd:
    """The call's arguments are complete."""


CALL_END = CallEnd()
Piece = str | CallStart | CallEnd


def argument_pieces(arguments: str) -> list[str]:
    """A call's arguments as token pieces (a JSON escape is cut after its backslash)."""
    out: list[str] = []
    for piece in split_pieces(arguments):
        at = piece.find("\\")
        if 0 <= at < len(piece) - 1:
            out += (piece[:at + 1], piece[at + 1:])
        else:
            out.append(piece)
    return out


class BrainError(Exception):
    """The brain raised while producing its answer (the cause is chained)."""


def count_pieces(texts: Iterable[str]) -> int:
    """The tokens of ``texts``, in bounded slices (the event loop gets the GIL between)."""
    total = 0
    for text in texts:
        carry = ""
        for at in range(0, len(text), SLICE):
            pieces = split_pieces(carry + text[at:at + SLICE])
            carry = pieces.pop()
            total += len(pieces)
        total += 1 if carry else 0
    return total


async def count_input(pool: Executor, request: BrainRequest) -> int:
    """The request's input tokens (instructions + conversation); in ``pool`` when large."""
    texts = [request.instructions, *(turn.text for turn in request.conversation)]
    if sum(len(text) for text in texts) <= INLINE_COUNT_CHARS:
        return count_pieces(texts)
    return await asyncio.get_running_loop().run_in_executor(pool, count_pieces, texts)


def small_request(request: BrainRequest, limit: int) -> bool:
    """Is the conversation at most ``limit`` characters (small enough to plan on the loop)?"""
    total = 0
    for turn in request.conversation:
        total += len(turn.text)
        if total > limit:
            return False
    return True


class PieceSource:
    """A brain's answer as token pieces (a call: :class:`CallStart`, pieces, :data:`CALL_END`)."""

    __slots__ = ("_buffer", "_carry", "_chunks", "_index", "_offload", "_prefetch", "exhausted",
                 "marked")

    def __init__(self, chunks: Iterator[str | BrainCall], offload: Offload | None = None) -> None:
        self._chunks = chunks
        self._offload = offload
        self.marked = False
        """Has the brain made a call (pieces may hold markers; :meth:`take` skips them)?"""
        self._buffer: list[Piece] = []
        self._index = 0
        self._carry = ""
        self._prefetch: asyncio.Future[None] | None = None
        self.exhausted = False

    # --- blocking part (a worker thread when offloaded) ----------------------------------

    def _split(self, chunk: str | BrainCall) -> None:
        if self._index:
            del self._buffer[: self._index]
            self._index = 0
        if isinstance(chunk, BrainCall):  # the text before it ends here
            if self._carry:
                self._buffer.append(self._carry)
                self._carry = ""
            self.marked = True
            self._buffer += [CallStart(chunk.name, chunk.arguments),
                             *argument_pieces(chunk.arguments), CALL_END]
            return
        for at in range(0, len(chunk), SLICE):
            pieces = split_pieces(self._carry + chunk[at:at + SLICE])
            self._carry = pieces.pop()
            self._buffer.extend(pieces)

    def _fill(self) -> bool:
        """Pull one more chunk; False when the brain has nothing more."""
        if self.exhausted:
            return False
        try:
            chunk = next(self._chunks, None)
            while chunk == "":
                chunk = next(self._chunks, None)
        except Exception as exc:
            raise BrainError(str(exc) or type(exc).__name__) from exc
        if chunk is not None:
            self._split(chunk)
            return True
        self.exhausted = True
        if self._carry:
            self._buffer.append(self._carry)
            self._carry = ""
        return False

    def _fill_until(self, want: int) -> None:
        while len(self._buffer) - self._index < want and self._fill():
            pass

    # --- the event loop's side -----------------------------------------------------------

    def prefetch(self) -> None:
        """Start pulling the first pieces now (offloaded brains only)."""
        if self._offload is not None and self._prefetch is None and not self.exhausted:
            self._prefetch = asyncio.ensure_future(
                self._offload(lambda: self._fill_until(BATCH)))

    async def _pull(self, want: int) -> None:
        if self._prefetch is not None:
            pending, self._prefetch = self._prefetch, None
            await pending
        if len(self._buffer) - self._index >= want or self.exhausted:
            return
        if self._offload is None:
            self._fill_until(want)
        else:
            batch = max(want, BATCH)
            await self._offload(lambda: self._fill_until(batch))

    async def take(self, n: int) -> list[Piece]:
        """Up to ``n`` next text pieces, with the call markers among them."""
        if len(self._buffer) - self._index < n or self._prefetch is not None:
            await self._pull(n)
        if not self.marked:
            start = self._index
            end = min(len(self._buffer), start + n)
            self._index = end
            return self._buffer[start:end]
        out: list[Piece] = []
        got = 0
        while True:
            if self._index == len(self._buffer):
                if got == n or self.exhausted:
                    return out
                await self._pull(n - got)
                if self._index == len(self._buffer):
                    return out
            item = self._buffer[self._index]
            if isinstance(item, str):
                if got == n:
                    return out
                got += 1
            out.append(item)
            self._index += 1

    async def left_within(self, want: int) -> int | None:
        """How many pieces are left when fewer than ``want`` are, else None."""
        if len(self._buffer) - self._index < want or self._prefetch is not None:
            await self._pull(want)
        left = len(self._buffer) - self._index
        if left < want and self.exhausted:
            return sum(isinstance(p, str) for p in self._buffer[self._index:])
        return None

    async def has_more(self) -> bool:
        if len(self._buffer) == self._index:
            await self._pull(1)
        return len(self._buffer) > self._index

    def close(self) -> None:
        """Forget a prefetch still running (the response ended without it)."""
        pending, self._prefetch = self._prefetch, None
        if pending is not None and not pending.cancel():  # it had finished: retrieve it
            with contextlib.suppress(BaseException):
                pending.result()
