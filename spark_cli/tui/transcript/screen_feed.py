"""The session on screen: the Interaction's sink (to the painter, then the app), the HUD's
state beyond events (window, channel, deep tasks, settings), the controllers' ``Output``, and
a resumed conversation shown again (``replay``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.console import RenderableType

from spark_cli.session.api import SessionApi
from spark_cli.session.config.settings import Settings
from spark_cli.session.events import (
    CompactionFinished,
    ProseDelta,
    RequestSent,
    TurnCompleted,
    TurnFailed,
)
from spark_cli.session.interaction import InteractionEvent
from spark_cli.session.workspace.store import ShownItem
from spark_cli.tui.cost import UsageLedger
from spark_cli.tui.hud import HudState
from spark_cli.tui.transcript.painter import Painter
from spark_cli.tui.transcript.shown import FIRST_TURNS, MORE_TURNS, Replay


class ScreenFeed:
    """What the screen shows of ``session`` (see the module doc)."""

    def __init__(self, session: SessionApi, after: Callable[[InteractionEvent], None]) -> None:
        self.session = session
        self.after = after
        """Told each event once it is painted (what is kept, a draft given back)."""
        self.state = HudState()
        self.ledger = UsageLedger()
        """What the session used (the HUD's total, ``/cost``)."""
        self.painter: Painter | None = None
        self.settings_changed(session.settings)

    def attach(self, painter: Painter) -> None:
        self.painter = painter
        self.show_hud()

    def on_event(self, event: InteractionEvent) -> None:
        """The Interaction's sink."""
        painter = self.painter
        if painter is None:
            return
        if type(event) is ProseDelta:  # per token: the painter and the keeper, nothing else
            painter.prose(event.text)
            self.after(event)
            return
        if type(event) is TurnFailed:  # an overflow answer may have told the server's window
            self.state.context_window = self.session.settings.context_window
        if type(event) is TurnCompleted or type(event) is TurnFailed:
            self.ledger.add(event.usage)
            self.state.spent = self.ledger.hud()
        elif type(event) is CompactionFinished and not event.auto:  # a turn holds the others
            self.ledger.add(event.usage, "/compact")
            self.state.spent = self.ledger.hud()
        painter.on_event(event)
        if type(event) is RequestSent:
            self._context_notes()
        self.after(event)

    def replay(self, items: Sequence[ShownItem]) -> None:
        """A resumed conversation as shown: its last turns now, earlier ones on scrolling up."""
        if self.painter is None:
            return
        replay, transcript = Replay(items), self.painter.transcript
        with transcript.batched():
            for block in replay.take(FIRST_TURNS):
                self.painter.write(block)
        transcript.more = (lambda: replay.take(MORE_TURNS)) if replay.left else None

    def _context_notes(self) -> None:
        """What the request left out to fit the window (or could not send), said once."""
        report = self.session.context
        if report is None:
            return
        self.state.context_tokens = report.used
        self.state.context_window = self.session.settings.context_window
        for line in (*report.trimmed, *report.notes):
            self.note(f"context: {line}", "yellow")

    def show_hud(self) -> None:
        if self.painter is not None:
            self.painter.hud.show(self.state, self.painter.clock())

    def link_state(self, state: str) -> None:
        self.state.state = state
        self.show_hud()

    def deep_tasks(self, text: str) -> None:
        self.state.deep = text
        self.state.spent = self.ledger.hud()  # a deep task that ended adds its own
        self.show_hud()

    def settings_changed(self, settings: Settings) -> None:
        """The provider, model and window in use (at start, ``/model``, ``/provider``)."""
        provider, state = settings.provider, self.state
        state.provider, state.model, state.channel = provider.name, provider.model, provider.kind
        state.context_window = settings.context_window
        self.show_hud()

    def note(self, text: str, style: str = "dim") -> None:
        if self.painter is not None:
            self.painter.note(text, style)

    def write(self, renderable: RenderableType) -> None:
        if self.painter is not None:
            self.painter.write(renderable)
