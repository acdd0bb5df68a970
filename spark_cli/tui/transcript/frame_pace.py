"""Which of the painter's ~30 Hz ticks paint: every one, or every other while text scrolls
faster than anyone reads.

Each painted frame that adds a line scrolls the transcript, and Textual re-renders its whole
region. Once the transcript grows by more than :data:`FAST_LINES_PER_S` screen lines a
second (read over windows of :data:`WINDOW_S`), :class:`FramePace` lets every other tick go
by; slower text keeps every tick. The answer's first text, keystrokes, the turn's end and
everything that is not prose stay at once. `spark bench stream --modes floor,tui` shows the
cost (docs/benchmarks.md, ``### The TUI's paint``).
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
