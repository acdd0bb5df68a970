"""`spark edit`'s live prefill timer on stderr ("prefill 12 s, 5.8k tokens") until the first
output, so a slow CPU prefill does not look hung: rewritten each second on a terminal, else
a line after ``FIRST_LINE_S`` and every ``EVERY_S``."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from spark_cli.protocol.tokens import kilo
from spark_cli.render.jsonl import JsonLinesRenderer

FIRST_LINE_S = 5.0
"""Seconds before a non-terminal stderr gets its first line (a fast server shows none)."""
EVERY_S = 15.0
"""Then one line per this many seconds (a terminal is updated every second)."""


def prefill_line(seconds: float, tokens: int) -> str:
    return f"prefill {seconds:.0f} s, {kilo(tokens)} tokens"


class PrefillTimer:
    """Started at the request, stopped at the first token (or the turn's end)."""

    def __init__(self, out: TextIO, tokens: int, *, tty: bool,
                 output_seen: Callable[[], bool] | None = None) -> None:
        self.out = out
        self.output_seen = output_seen
        """True once the turn has output (a tool call shows no prose): the timer ends."""
        self.tokens = tokens
        self.tty = tty
        self.since: float | None = None
        self._handle: asyncio.TimerHandle | None = None
        self._shown = False

    def start(self, at: float) -> None:
        """The request left at ``at`` (``perf_counter``); the first call wins."""
        if self.since is not None:
            return
        self.since = at
        self._schedule(1.0 if self.tty else FIRST_LINE_S)

    def _schedule(self, delay: float) -> None:
        self._handle = asyncio.get_running_loop().call_later(delay, self._tick)

    def _tick(self) -> None:
        if self.since is None:
            return
        if self.output_seen is not None and self.output_seen():
            self.stop()
            return
        line = prefill_line(time.perf_counter() - self.since, self.tokens)
        try:
            if self.tty:
                self.out.write(f"\r\x1b[2K… {line}")
            else:
                self.out.write(f"… {line}\n")
            self.out.flush()
        except (OSError, ValueError):
            return
        self._shown = True
        self._schedule(1.0 if self.tty else EVERY_S)

    def stop(self) -> None:
        """The first token (or the end): no more lines; a terminal's line is erased."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self.since = None
        if self._shown and self.tty:
            self._shown = False
            try:
                self.out.write("\r\x1b[2K")
                self.out.flush()
            except (OSError, ValueError):
                pass


def timer_for(renderer: object, session: Any) -> PrefillTimer | None:
    """The live prefill line on stderr, for the text renderer (not for ``--json``)."""
    if isinstance(renderer, JsonLinesRenderer):
        return None
    return PrefillTimer(sys.stderr, session.context_tokens, tty=sys.stderr.isatty(),
                        output_seen=lambda: session.marks.first_output_at is not None)
