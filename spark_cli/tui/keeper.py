"""What survives a crash or a restart: the draft, the queue, the prompt history, the talk.

The app reports changes here; the :class:`Keeper` writes them through the
repo's ``SessionStore`` (small atomic files): the draft ~0.2 s after the last
key (so typing costs nothing), the queue and each sent prompt at once, the
conversation when a turn ends. A problem writing or reading state is shown
once, as a line, and never stops the session.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from spark_cli.session.api import SessionApi
from spark_cli.session.workspace.store import SavedState, SessionStore

DRAFT_SAVE_S = 0.2
RESUME_SHOWN = 6


class _Timer(Protocol):
    def stop(self) -> None: ...


Note = Callable[[str, str], None]
SetTimer = Callable[[float, Callable[[], None]], _Timer]


class Keeper:
    """Saves what the app reports (see the module doc); ``store`` None keeps nothing."""

    def __init__(self, store: SessionStore | None, note: Note, set_timer: SetTimer) -> None:
        self.store = store
        self.note = note
        self.set_timer = set_timer
        self._draft_timer: _Timer | None = None

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
        provider = session.settings.provider
        history = tuple(session.history)
        self._keep(lambda store: store.save_conversation(
            history, provider=provider.name, model=provider.model))

    def resume(self, session: SessionApi) -> None:
        """Reopen this repo's last saved conversation into ``session``."""
        store = self.store
        saved = store.load_conversation() if store is not None else None
        for problem in store.take_problems() if store is not None else ():
            self.note(problem, "yellow")
        if saved is None:
            self.note("no saved conversation for this repo", "yellow")
            return
        session.restore(saved.history)
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(saved.saved_at))
        self.note(f"resumed the conversation of {when} ({len(saved.history)} messages, "
                  f"{saved.provider} · {saved.model}); the model sees it all again", "bold")
        for message in saved.history[-RESUME_SHOWN:]:
            if message.role == "user":
                self.note("› " + message.content.strip().splitlines()[-1][:200], "bold cyan")
