"""A Linux driver whose ``select`` waits ``ESCDELAY`` while a sequence is open, so a lone Esc
goes at once (Textual's waits its 0.1 s idle timeout); on Textual's private ``XTermParser``
(``tests/tui/tuning/test_fast_esc.py``). Ledger (docs/benchmarks.md): `spark bench tui --only
pty` times it against Textual's stock driver."""

from __future__ import annotations

import os
import selectors
from codecs import getincrementaldecoder
from collections.abc import Callable

from textual import constants
from textual._parser import ParseError
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

SPARK_ESCDELAY_MS = "25"
_IDLE_TIMEOUT = 0.1
_OPEN_TAIL = 8  # an ESC this close to the end of a read may start an unfinished sequence


def set_escape_delay() -> None:
    """Our default ``ESCDELAY`` unless the user chose one, set in Textual's constant too."""
    os.environ.setdefault("ESCDELAY", SPARK_ESCDELAY_MS)
    constants.ESCAPE_DELAY = escape_delay_s(os.environ["ESCDELAY"])  # type: ignore[misc]


def escape_delay_s(value: str) -> float:
    """``ESCDELAY`` (milliseconds) in seconds as Textual reads it (not a number: its default)."""
    try:
        milliseconds = int(value)
    except ValueError:
        milliseconds = 100
    return max(milliseconds, 1) / 1000.0


class FastEscDriver(LinuxDriver):
    """``LinuxDriver`` with an input loop that wakes up when a pending Esc is due."""

    def run_input_thread(self) -> None:
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        parser = XTermParser(self._debug)
        decode = getincrementaldecoder("utf-8")().decode
        escape_wait = constants.ESCAPE_DELAY + 0.002
        timeout = _IDLE_TIMEOUT
        try:
            while not self.exit_event.is_set():
                timeout = self._pump(selector.select(timeout), parser, decode, escape_wait)
            selector.unregister(self.fileno)
            self._pump(selector.select(_IDLE_TIMEOUT), parser, decode, escape_wait, final=True)
        finally:
            selector.close()
            try:
                for _event in parser.feed(""):
                    pass
            except (EOFError, ParseError):
                pass

    def _pump(self, ready: list[tuple[selectors.SelectorKey, int]], parser: XTermParser,
              decode: Callable[..., str], escape_wait: float, *, final: bool = False) -> float:
        """Read what is ready, dispatch its events; the next select timeout."""
        timeout = _IDLE_TIMEOUT
        for index, (_key, mask) in enumerate(ready):
            if not mask & selectors.EVENT_READ:
                continue
            last = index == len(ready) - 1
            data = decode(os.read(self.fileno, 4096), final=final and last)
            if not data:
                break  # stdin is a pipe that ended
            for event in parser.feed(data):
                self.process_message(event)
            if "\x1b" in data[-_OPEN_TAIL:]:
                timeout = escape_wait
        for event in parser.tick():
            self.process_message(event)
        return timeout
