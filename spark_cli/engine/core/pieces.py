"""Turning a brain's text chunks into token pieces: lazily, in order, off the event loop.

A brain yields text in any chunking; pieces are cut with
:data:`spark_cli.protocol.tokens.PIECE` over each chunk, with the last piece
carried into the next chunk so chunk boundaries do not change the count (the
total matches ``count_tokens`` of the whole answer). A brain may yield forever:
pieces are pulled only as they are needed.

Brain work (planning an edit, parsing files) must not stall other streams'
pacing, so pulls run through an *offload* callable (the engine's brain thread
pool) unless the brain declares itself ``inline`` (its chunks are precomputed,
as lorem's). Long chunks are cut in :data:`SLICE`-character slices so no single
regex call holds the GIL for long. :meth:`PieceSource.prefetch` starts the
first pull at once, so a brain plans while the time to first token runs.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterable, Iterator

from spark_cli.protocol.tokens import split_pieces

Offload = Callable[[Callable[[], None]], Awaitable[None]]
"""Runs a blocking function off the event loop (e.g. ``loop.run_in_executor``)."""
SLICE = 65_536
"""Characters split at once: one ``findall`` then holds the GIL for ~10 ms at most."""
BATCH = 512
"""Pieces an offloaded pull gathers at least: each trip to the pool costs ~0.1 ms of
wake-ups, so a short answer is fetched in one trip, a long one in few."""


class BrainError(Exception):
    """The brain raised while producing its answer (the cause is chained)."""


def count_pieces(texts: Iterable[str]) -> int:
    """``sum(count_tokens(t) for t in texts)``, in bounded slices (safe in a worker thread:
    the event loop gets the GIL between slices)."""
    total = 0
    for text in texts:
        carry = ""
        for at in range(0, len(text), SLICE):
            pieces = split_pieces(carry + text[at:at + SLICE])
            carry = pieces.pop()
            total += len(pieces)
        total += 1 if carry else 0
    return total


class PieceSource:
    __slots__ = ("_buffer", "_carry", "_chunks", "_index", "_offload", "_prefetch", "exhausted")

    def __init__(self, chunks: Iterator[str], offload: Offload | None = None) -> None:
        self._chunks = chunks
        self._offload = offload
        self._buffer: list[str] = []
        self._index = 0
        self._carry = ""
        self._prefetch: asyncio.Future[None] | None = None
        self.exhausted = False

    # --- blocking part (a worker thread when offloaded) ----------------------------------

    def _split(self, chunk: str) -> None:
        if self._index:
            del self._buffer[: self._index]
            self._index = 0
        if len(chunk) <= SLICE:  # the usual case (a line, a hunk)
            pieces = split_pieces(self._carry + chunk)
            self._carry = pieces.pop()
            self._buffer.extend(pieces)
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

    async def take(self, n: int) -> list[str]:
        """Up to ``n`` next pieces (fewer only when the answer ends)."""
        if len(self._buffer) - self._index < n or self._prefetch is not None:
            await self._pull(n)
        start = self._index
        end = min(len(self._buffer), start + n)
        self._index = end
        return self._buffer[start:end]

    async def left_within(self, want: int) -> int | None:
        """How many pieces are left when fewer than ``want`` are (the answer has ended: the
        next ``want`` are pulled ahead to know), else None (``want`` or more, or an answer
        that goes on)."""
        if len(self._buffer) - self._index < want or self._prefetch is not None:
            await self._pull(want)
        left = len(self._buffer) - self._index
        return left if left < want and self.exhausted else None

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
