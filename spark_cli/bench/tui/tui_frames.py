"""Frame stamps for `spark bench tui`: a driver that renders like a terminal (Textual's headless
one skips the terminal bytes) and stamps each write."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from textual.drivers.headless_driver import HeadlessDriver


@dataclass(slots=True)
class FrameLog:
    """What the driver saw: one ``(perf_counter, answer chars on screen)`` per frame written."""

    shown: Callable[[], int] = lambda: 0
    """The answer's characters on screen now (set by the bench to read the app's painter)."""
    frames: list[tuple[float, int]] = field(default_factory=list)
    _waiters: list[tuple[str, asyncio.Future[float]]] = field(default_factory=list)

    def expect(self, marker: str) -> asyncio.Future[float]:
        """A future for the stamp of the first frame from now whose text contains ``marker``."""
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._waiters.append((marker, future))
        return future

    def wrote(self, data: str) -> None:
        now = time.perf_counter()
        self.frames.append((now, self.shown()))
        if self._waiters:
            keep = []
            for marker, future in self._waiters:
                if future.done():
                    continue
                if marker in data:
                    future.set_result(now)
                else:
                    keep.append((marker, future))
            self._waiters = keep

    def first_showing(self, chars: int, after: float = 0.0) -> float | None:
        """The stamp of the first frame after ``after`` that shows at least ``chars``."""
        for stamp, shown in self.frames:
            if stamp >= after and shown >= chars:
                return stamp
        return None


class RecordingDriver(HeadlessDriver):
    """Headless, except that frames are rendered to terminal bytes and stamped (module doc)."""

    log = FrameLog()
    """Replaced by the bench before each app starts (the driver is built by the app)."""

    @property
    def is_headless(self) -> bool:
        return False

    def write(self, data: str) -> None:
        RecordingDriver.log.wrote(data)

    def flush(self) -> None:
        pass
