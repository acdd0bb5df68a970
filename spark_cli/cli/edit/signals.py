"""SIGTERM and SIGHUP for `spark edit`: end the run as Ctrl-C does, exit 128+n.

During a turn the event loop takes them (``edit_run._CtrlC``): the first one
stops the turn and the run ends as usual (the end diff, the summary; in pipe
mode the ORIGINAL text on stdout), a second gives up at once. Outside the
turn (reading stdin, connecting, printing) :func:`terminations` turns them into
:class:`Terminated`, which the pipe front end catches to write the original
text back before it exits. Either way the exit code is 128 + the signal's
number (143 for SIGTERM, 129 for SIGHUP), as a shell reports it.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

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
    """While inside, SIGTERM and SIGHUP raise :class:`Terminated` (the previous handlers
    come back on the way out)."""
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
