"""Which of the painter's ~30 Hz ticks paint: fewer while text scrolls faster than anyone reads
(each painted line scrolls the transcript, and Textual renders its whole region again). Keys,
the first text and the turn's end stay at once (docs/benchmarks.md, ``### The TUI's paint``)."""

from __future__ import annotations

PACES = ((30.0, 2), (150.0, 4))
"""(screen lines a second, one tick in how many paints) from that rate on: ~15 Hz, then ~7.5."""
FAST_LINES_PER_S = PACES[0][0]
WINDOW_S = 0.25
"""How long the line rate is counted over before it is judged again."""


class FramePace:
    """Counts the transcript's lines over time; says whether a tick paints (module doc)."""

    def __init__(self) -> None:
        self.every = 1
        """One tick in this many paints (the last window's rate, :data:`PACES`)."""
        self._ticks = 0  # ticks let go since the last painted one
        self._since: float | None = None  # when the current window started
        self._lines = 0  # the transcript's line count then

    @property
    def fast(self) -> bool:
        """The last window's text came faster than :data:`FAST_LINES_PER_S`."""
        return self.every > 1

    def reset(self) -> None:
        """A new turn: every tick paints until its text is measured."""
        self.every, self._ticks = 1, 0
        self._since = None

    def due(self) -> bool:
        """Whether this tick paints."""
        self._ticks += 1
        if self._ticks < self.every:
            return False
        self._ticks = 0
        return True

    def painted(self, lines: int, now: float) -> None:
        """A tick painted; ``lines`` is the transcript's line count after it."""
        since = self._since
        if since is None or lines < self._lines:
            self._since, self._lines = now, lines
            return
        span, added = now - since, lines - self._lines
        if span >= WINDOW_S or added >= PACES[-1][0] * WINDOW_S:  # surely the top pace
            rate = added / max(span, WINDOW_S)
            self.every = max((every for limit, every in PACES if rate >= limit), default=1)
            self._since, self._lines = now, lines
