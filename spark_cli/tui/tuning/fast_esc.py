"""A Linux terminal driver whose lone Esc arrives in ~25 ms instead of ~100-200 ms.

A terminal sends the Esc key as the byte ``\\x1b``, which also starts every
escape sequence, so the input parser waits ``ESCDELAY`` for more bytes before
it calls it Esc. Textual's Linux driver, though, only lets the parser look at
its clock when ``select`` returns, and it selects with a fixed 0.1 s timeout:
a lone Esc reaches the app 100 ms (up to ~200 ms) after the key, whatever
``ESCDELAY`` says. This driver selects with a timeout of ``ESCDELAY`` whenever
the last bytes read leave an escape sequence open, and 0.1 s otherwise (idle
cost unchanged). spark sets ``ESCDELAY`` to 25 ms unless the user set it.

Terminals that speak the kitty keyboard protocol (which Textual enables) send
Esc as an unambiguous sequence and need no wait at all.

Esc → turn stopped on screen in a pty: see docs/benchmarks.md, Ledger; `spark bench tui
--only pty` times this driver against Textual's stock one in one run.
"""

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
    """Our default ``ESCDELAY`` unless the user chose one, in force at once.

    Textual reads ``ESCDELAY`` once, when ``textual.constants`` is imported,
    and this module imports it: setting the variable alone came too late (the
    parser and this driver kept Textual's 100 ms), so the constant is set too.
    """
    os.environ.setdefault("ESCDELAY", SPARK_ESCDELAY_MS)
    constants.ESCAPE_DELAY = escape_delay_s(os.environ["ESCDELAY"])  # type: ignore[misc]


def escape_delay_s(value: str) -> float:
    """``ESCDELAY`` (milliseconds) as Textual reads it: seconds, at least 1 ms, 100 ms if bad."""
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
