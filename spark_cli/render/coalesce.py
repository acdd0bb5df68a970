"""Writing streamed text without a system call per token (``spark bench stream``); a flush
that fails on the timer is raised by the next write or flush (``spark edit ... | head``)."""

from __future__ import annotations

from time import monotonic
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    import asyncio

FLUSH_INTERVAL = 0.016
"""About one frame at 60 Hz: text shows within this of arriving."""


class CoalescingWriter:
    """Hands pending text to ``out`` in one ``write`` + ``flush`` at most every ``interval``
    (at once after a quiet ``interval``, else on the loop's timer); events :meth:`flush`."""

    __slots__ = ("_error", "_handle", "_interval", "_last", "_pending", "out")

    def __init__(self, out: TextIO, interval: float = FLUSH_INTERVAL) -> None:
        self.out = out
        self._interval = interval
        self._last = -interval
        self._handle: asyncio.TimerHandle | None = None
        self._error: BaseException | None = None
        self._pending: list[str] = []

    def write(self, text: str) -> None:
        """Keep ``text``; write and flush now or within ``interval``."""
        if self._error is not None:
            self._raise()
        self._pending.append(text)
        if self._handle is not None:
            return  # a flush is already due
        now = monotonic()
        wait = self._last + self._interval - now
        if wait <= 0:
            self._last = now
            self._emit()
            return
        from asyncio import get_running_loop  # deferred: launch -> request
        # a one-shot sends its request before asyncio loads (spark_cli.cli.wiring.send_ahead)

        try:
            self._handle = get_running_loop().call_later(wait, self._due)
        except RuntimeError:  # no loop: every write flushes
            self._emit()

    def flush(self) -> None:
        """Flush now (an event boundary); cancels a pending timed flush."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if self._error is not None:
            self._raise()
        self._last = monotonic()
        self._emit()

    def _emit(self) -> None:
        """The pending text in one write, then a flush."""
        pending = self._pending
        if pending:
            text = pending[0] if len(pending) == 1 else "".join(pending)
            pending.clear()
            self.out.write(text)
        self.out.flush()

    def _due(self) -> None:
        self._handle = None
        self._last = monotonic()
        try:
            self._emit()
        except (OSError, ValueError) as exc:  # raised again where the caller can handle it
            self._error = exc

    def _raise(self) -> None:
        error, self._error = self._error, None
        assert error is not None
        raise error
