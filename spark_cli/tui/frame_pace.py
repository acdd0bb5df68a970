"""Which of the painter's ~30 Hz ticks paint: every one, or every other while text scrolls
faster than anyone reads.

While an answer streams, each painted frame that adds a line scrolls the
transcript, and Textual then re-renders and re-emits the transcript's whole
region (~2.4 ms a frame). Once the transcript grows by more than
:data:`FAST_LINES_PER_S` screen lines a second (at 30 Hz, a line or more every
frame: every frame scrolls, far past reading speed), :class:`FramePace` lets
every other tick go by, so such text is painted at ~15 Hz, a few more lines a
step. Slower text (a person can follow it) keeps every tick. The rate is read
over windows of :data:`WINDOW_S`, so a single burst does not switch it.

What stays at once: the answer's first text (the painter paints it when it
arrives), keystrokes (Textual paints the prompt on its own timer, not on this
clock), the turn's end and everything that is not prose.

`spark bench stream --modes floor,tui` (docs/benchmarks.md, ``### The TUI's paint``).
"""

from __future__ import annotations

FAST_LINES_PER_S = 30.0
"""Screen lines a second from which text is painted on every other tick."""
WINDOW_S = 0.25
"""How long the line rate is counted over before it is judged again."""


class FramePace:
    """Counts the transcript's lines over time; says whether a tick paints (module doc)."""

    def __init__(self) -> None:
        self.fast = False
        """The last window's text came faster than :data:`FAST_LINES_PER_S`."""
        self._skipped = False  # the last tick was let go
        self._since: float | None = None  # when the current window started
        self._lines = 0  # the transcript's line count then

    def reset(self) -> None:
        """A new turn: every tick paints until its text is measured."""
        self.fast = self._skipped = False
        self._since = None

    def due(self) -> bool:
        """Whether this tick paints (every other one while :attr:`fast`)."""
        if self.fast and not self._skipped:
            self._skipped = True
            return False
        self._skipped = False
        return True

    def painted(self, lines: int, now: float) -> None:
        """A tick painted; ``lines`` is the transcript's line count after it."""
        since = self._since
        if since is None or lines < self._lines:
            self._since, self._lines = now, lines
            return
        span = now - since
        if span >= WINDOW_S:
            self.fast = lines - self._lines >= FAST_LINES_PER_S * span
            self._since, self._lines = now, lines
