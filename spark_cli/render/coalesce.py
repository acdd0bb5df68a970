"""Writing streamed text without a system call per token.

A provider may send one token per delta; writing and flushing each one costs a
``write(2)`` per token. :class:`CoalescingWriter` writes into the stream's own
buffer and flushes at most every ``interval`` seconds: at once when nothing was
flushed for that long (so the first token shows immediately), else on a timer
of the running event loop (so the tail of a burst is never held back longer
than ``interval``). Event boundaries (an edit landing, the summary) call
:meth:`flush`. Outside an event loop every write is flushed.

A flush that fails on the timer (stdout closed early) is raised by the next
write or flush, where the caller handles it (``spark edit ... | head``).
"""

from __future__ import annotations

from time import monotonic
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    import asyncio

FLUSH_INTERVAL = 0.016
"""About one frame at 60 Hz: text shows within this of arriving."""


class CoalescingWriter:
    __slots__ = ("_error", "_handle", "_interval", "_last", "out")

    def __init__(self, out: TextIO, interval: float = FLUSH_INTERVAL) -> None:
        self.out = out
        self._interval = interval
        self._last = -interval
        self._handle: asyncio.TimerHandle | None = None
        self._error: BaseException | None = None

    def write(self, text: str) -> None:
        """Write now; flush now or within ``interval``."""
        if self._error is not None:
            self._raise()
        self.out.write(text)
        if self._handle is not None:
            return  # a flush is already due
        now = monotonic()
        wait = self._last + self._interval - now
        if wait <= 0:
            self._last = now
            self.out.flush()
            return
        from asyncio import get_running_loop  # at most once a flush interval; not at import:
        # a one-shot sends its request before asyncio loads (spark_cli.cli.wiring.send_ahead)

        try:
            loop = get_running_loop()
        except RuntimeError:
            self.out.flush()
            return
        self._handle = loop.call_later(wait, self._due)

    def flush(self) -> None:
        """Flush now (an event boundary); cancels a pending timed flush."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if self._error is not None:
            self._raise()
        self._last = monotonic()
        self.out.flush()

    def _due(self) -> None:
        self._handle = None
        self._last = monotonic()
        try:
            self.out.flush()
        except (OSError, ValueError) as exc:  # raised again where the caller can handle it
            self._error = exc

    def _raise(self) -> None:
        error, self._error = self._error, None
        assert error is not None
        raise error
