"""One deep task as plain state a HUD reads: number, state, timing, tokens, transcript, change.

States: ``snapshotting`` -> ``running`` -> ``done`` (a change to review) |
``failed`` (``error`` says why in one line) | ``cancelled``; a done task then
becomes ``applied`` (every hunk is in the working tree) or ``dropped``. The
runner (``spark_cli.session.deep.run``) and the track
(``spark_cli.session.deep.track``) change it; a front end only reads it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from spark_cli.session.deep.result import DeepChange
    from spark_cli.session.events import SessionEvent

DeepState = Literal["snapshotting", "running", "done", "failed", "cancelled", "applied",
                    "dropped"]
ACTIVE: frozenset[DeepState] = frozenset({"snapshotting", "running"})


@dataclass(eq=False)
class DeepTask:
    """A deep task: live while it runs, then its result."""

    number: int
    """1, 2, ... in this track (a restored task gets a new number)."""
    task: str
    state: DeepState = "snapshotting"
    started_at: float = field(default_factory=time.time)
    """Unix time."""
    ended_at: float | None = None
    output_tokens: int = 0
    """Counted live from the stream; the provider's figure once the turn ends."""
    events: list[SessionEvent] = field(default_factory=list)
    """Its own transcript: the deep session's events, in order."""
    error: str | None = None
    """One line when ``failed``."""
    change: DeepChange | None = None
    """What it changed (when ``done``); empty when the model changed nothing."""
    files: tuple[str, ...] = ()
    """The files the deep model was given."""
    saved_as: str | None = None
    """The saved result's id (restored by ``load_finished`` after a restart)."""
    note: str | None = None
    """One line a front end shows once when the task starts (e.g. that it runs on the
    bundled engine because no deep provider is configured)."""

    @property
    def active(self) -> bool:
        """Still working (snapshotting or running): cancel applies, the HUD shows it live."""
        return self.state in ACTIVE

    @property
    def elapsed(self) -> float:
        """Seconds from start to end (or to now while it runs)."""
        return max(0.0, (self.ended_at if self.ended_at is not None else time.time())
                   - self.started_at)

    @property
    def summary(self) -> str:
        """One line for a HUD: ``#2 running 12s 1,234 tok: rename ...``."""
        head = self.task.strip().splitlines()[0] if self.task.strip() else ""
        head = head if len(head) <= 48 else head[:47] + "…"
        extra = ""
        if self.state == "failed" and self.error:
            extra = f" ({self.error})"
        elif self.state == "done" and self.change is not None:
            extra = (" (no changes)" if self.change.empty else
                     f" ({len(self.change.files)} file(s), {self.change.hunk_count} hunk(s) "
                     "to review)")
        return (f"#{self.number} {self.state} {self.elapsed:.0f}s {self.output_tokens:,} tok: "
                f"{head}{extra}")

    def finish(self, state: DeepState, error: str | None = None) -> None:
        self.state = state
        self.error = error
        if self.ended_at is None:
            self.ended_at = time.time()
