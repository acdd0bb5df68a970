"""SIGTERM and SIGHUP for `spark edit`: end the run as Ctrl-C does, exit 128 + n.

During a turn :class:`TurnSignals` takes them with SIGINT; outside it :func:`terminations`
raises :class:`Terminated`, so the pipe front end writes the original back."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

    from spark_cli.session.api import SessionApi

STOP_SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
"""The signals besides SIGINT that stop a run gracefully (where the platform has them)."""


class Terminated(BaseException):  # a signal, like KeyboardInterrupt
    """SIGTERM or SIGHUP arrived outside a turn."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise(signum: int, frame: FrameType | None) -> None:
    raise Terminated(signum)


@contextmanager
def terminations() -> Iterator[None]:
    """While inside, SIGTERM and SIGHUP raise :class:`Terminated`."""
    previous = {}
    try:
        for sig in STOP_SIGNALS:
            previous[sig] = signal.signal(sig, _raise)
    except ValueError:  # not the main thread: leave the signals as they are
        pass
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def signal_name(signum: int) -> str:
    """``SIGTERM`` for 15."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


class TurnSignals:
    """SIGINT, SIGTERM, SIGHUP in a turn: the first stops the turn, a second gives up at once."""

    def __init__(self, task: asyncio.Task[Any] | None) -> None:
        self.task = task
        self.session: SessionApi | None = None
        self.count = 0
        self.signum: int = signal.SIGINT
        self._pending: set[asyncio.Future[None]] = set()
        self._previous: dict[int, Any] = {}

    def __call__(self, signum: int = signal.SIGINT) -> None:
        self.count += 1
        if self.count > 1:
            raise KeyboardInterrupt
        self.signum = signum
        import asyncio  # deferred: launch -> request

        session = self.session
        if session is not None and session.streaming:
            stopping = asyncio.ensure_future(session.interrupt())
            self._pending.add(stopping)
            stopping.add_done_callback(self._pending.discard)
        elif self.task is not None:
            self.task.cancel()

    def install(self) -> bool:
        import asyncio  # deferred: launch -> request (pipe mode imports this first)

        loop = asyncio.get_running_loop()
        try:
            for sig in (signal.SIGINT, *STOP_SIGNALS):
                previous = signal.getsignal(sig)
                loop.add_signal_handler(sig, self, sig)
                self._previous[sig] = previous
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread / Windows
            return bool(self._previous)
        return True

    def remove(self) -> None:
        """Give the signals back as they were before the turn."""
        import asyncio  # deferred: launch -> request

        loop = asyncio.get_running_loop()
        for sig, previous in self._previous.items():
            loop.remove_signal_handler(sig)
            if sig != signal.SIGINT and previous is not None:
                signal.signal(sig, previous)
