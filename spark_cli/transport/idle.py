"""An idle timeout for a read loop that costs two attribute writes per frame.

``asyncio.timeout`` around every ``recv()`` allocates a context manager and
schedules a timer per frame (a quarter of the client's CPU at 5,000 frames).
:class:`IdleWatch` keeps one timer for the whole turn: the loop marks when it
starts waiting (``begin()``) and when a frame arrived (``end()``); only time
spent waiting counts, so a slow consumer is never mistaken for a silent server.
When the server stays silent for ``idle`` seconds, the watch cancels the
reading task; the loop turns that into a timeout with :meth:`claim`.
"""

from __future__ import annotations

import asyncio
from time import monotonic

QUEUE_TIMEOUT = 300.0
"""Seconds of silence allowed while the server says the request waits in its queue."""


class IdleWatch:
    """While the provider has said the request is queued for capacity, silence is
    expected: the loop calls :meth:`set_limit` with a much longer queue timeout,
    and back with the idle timeout once anything but a queue notice arrives.
    """

    __slots__ = ("_handle", "_loop", "_task", "fired", "limit", "since")

    def __init__(self, idle: float) -> None:
        task = asyncio.current_task()
        if task is None:
            raise RuntimeError("IdleWatch needs a running task")
        self._task = task
        self.limit = idle
        """Seconds of silence that count as a stall (see :meth:`set_limit`)."""
        self._loop = asyncio.get_running_loop()
        self.since: float | None = None
        """When the current wait began (None: not waiting)."""
        self.fired = False
        self._handle: asyncio.TimerHandle | None = self._loop.call_later(idle, self._check)

    def _check(self) -> None:
        since = self.since
        if since is None:
            delay = self.limit
        else:
            delay = since + self.limit - monotonic()
            if delay <= 0:
                self.fired = True
                self._handle = None
                self._task.cancel()
                return
        self._handle = self._loop.call_later(delay, self._check)

    def set_limit(self, seconds: float) -> None:
        """Change the allowed silence now (the pending check is re-armed: a shorter
        limit takes effect at once, not when a check scheduled for the longer one runs)."""
        if seconds == self.limit:
            return
        self.limit = seconds
        if self._handle is not None:
            self._handle.cancel()
            self._handle = self._loop.call_later(0, self._check)

    def claim(self) -> bool:
        """After a CancelledError: True when it was this watch's doing (and absorbed)."""
        if not self.fired:
            return False
        self.fired = False
        return self._task.uncancel() == 0

    def close(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
