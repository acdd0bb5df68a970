"""What survives a crash or a restart: the draft (~0.2 s after the last key), the queue and the
prompt history, through the repo's ``SessionStore``; the session saves the conversation after
each turn with what the transcript showed (``Keep``). A write problem is shown once, a line."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from spark_cli.session.api import Keep, SessionApi, shown_from_history
from spark_cli.session.interaction import InteractionEvent
from spark_cli.session.workspace.store import (
    SavedState,
    SessionInfo,
    SessionStore,
    ShownItem,
)
from spark_cli.tui.output import Ticker
from spark_cli.tui.transcript.shown import ShownLog

DRAFT_SAVE_S = 0.2


Note = Callable[[str, str], None]
SetTimer = Callable[[float, Callable[[], None]], Ticker]


class Keeper:
    """Saves what the app reports (see the module doc); ``store`` None keeps nothing."""

    def __init__(self, store: SessionStore | None, note: Note, set_timer: SetTimer) -> None:
        self.store = store
        self.note = note
        self.set_timer = set_timer
        self._draft_timer: Ticker | None = None
        self.shown = ShownLog()
        """What the transcript showed of this conversation (saved with it)."""
        self.starts: list[int] = []
        """Where each of the session's turns starts in ``shown.items``."""

    def keep(self, session: SessionApi) -> None:
        """``session`` saves its conversation in the store after each turn, with ``shown``."""
        if self.store is not None:
            session.set_keep(Keep(self.store, lambda: tuple(self.shown.items),
                                  lambda line: self.note(line, "yellow")))

    def on_event(self, event: InteractionEvent) -> None:
        self.shown.on_event(event)

    def load(self) -> SavedState:
        return self.store.load() if self.store is not None else SavedState()

    def _keep(self, save: Callable[[SessionStore], str | None]) -> None:
        if self.store is None:
            return
        problem = save(self.store)
        if problem:
            self.note(problem, "yellow")

    def draft_changed(self, text: str) -> None:
        if self.store is None:
            return
        if self._draft_timer is not None:
            self._draft_timer.stop()
        self._draft_timer = self.set_timer(
            DRAFT_SAVE_S, lambda: self._keep(lambda store: store.save_draft(text)))

    def prompt_sent(self, text: str) -> None:
        self._keep(lambda store: store.add_prompt(text))

    def queue_changed(self, items: tuple[str, ...]) -> None:
        self._keep(lambda store: store.save_queue(items))

    def turn_ended(self, session: SessionApi) -> None:
        """The session saved the turn: where its turns start in what was shown."""
        self.starts = [turn.shown_at for turn in session.turns]

    def new_conversation(self) -> None:
        """What follows is saved as a new conversation (the one so far stays saved)."""
        self.shown.reset()
        self.starts = []
        if self.store is not None:
            self.store.fork()

    def rewound(self, index: int) -> tuple[ShownItem, ...]:
        """Turns ``index`` on were dropped: what stays shown (all, when it is not known)."""
        cut = self.starts[index] if index < len(self.starts) else -1
        if cut >= 0:
            self.shown.reset(self.shown.items[:cut])
        del self.starts[index:]
        return tuple(self.shown.items)

    def resume(self, session: SessionApi,
               show: Callable[[Sequence[ShownItem]], None] = lambda items: None,
               session_id: str = "") -> None:
        """Reopen conversation ``session_id`` ("": the only one, or a list to pick from)."""
        store = self.store
        several = store is not None and not session_id and len(store.conversation_ids()) > 1
        listed = store.list_conversations() if store is not None and several else []
        if len(listed) > 1:
            self._list(listed)
            return
        saved = store.load_conversation(session_id or None) if store is not None else None
        for problem in store.take_problems() if store is not None else ():
            self.note(problem, "yellow")
        if saved is None:
            self.note(f"no saved conversation {session_id} for this repo (/resume lists them)"
                      if session_id else "no saved conversation for this repo", "yellow")
            return
        session.restore(saved.history, saved.turns)
        items = saved.shown or shown_from_history(saved)
        self.shown.reset(items)
        self.starts = [turn.shown_at for turn in saved.turns]
        show(items)
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(saved.saved_at))
        self.note(f"resumed the conversation of {when} ({len(saved.history)} messages, "
                  f"{saved.provider} · {saved.model}); the model sees it all again", "bold")


    def _list(self, listed: Sequence[SessionInfo]) -> None:
        self.note(f"{len(listed)} saved conversations, newest first (/resume ID opens one; "
                  "spark --resume ID too):", "bold")
        for info in listed:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.saved_at))
            first = (info.first.strip().splitlines() or [""])[0][:70]
            self.note(f"  {info.id}  {when}  {info.messages:>3} messages  {first}", "")
