"""The prompt: multi-line input that keeps focus and every key. Enter sends, Ctrl+J / Alt+Enter /
Shift+Enter add a line, Tab queues, Up/Down walk the history (the draft comes back); with the
popup open Up/Down choose, Tab/Enter insert; ``?`` on an empty prompt asks for ``/help``."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual import events
from textual.message import Message
from textual.widgets import TextArea

from spark_cli.tui.prompt.completion import Choice, Completer

NEWLINE_KEYS = frozenset({"ctrl+j", "alt+enter", "shift+enter", "ctrl+enter"})


class Prompt(TextArea):
    """The multi-line prompt (see the module doc)."""

    DEFAULT_CSS = """
    Prompt { height: auto; min-height: 3; max-height: 12; border: tall $accent; }
    """

    class Taken(Message):
        """The prompt's text, taken by a key (the prompt is cleared)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class Sent(Taken):
        """Enter: send the text."""

    class QueueAsked(Taken):
        """Tab: queue the text."""

    def __init__(self, sent_prompts: Sequence[str] = (), *, id: str | None = None) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=False, tab_behavior="indent", id=id)
        self.sent_prompts: list[str] = list(sent_prompts)
        self._walk: int | None = None  # index into history while walking it
        self._draft = ""  # what was typed before the walk started
        self.completer: Completer | None = None
        self.popup_changed: Callable[[], None] = lambda: None
        """Told when the popup's choice moved (the app repaints it)."""
        self.complete_now: Callable[[], None] = lambda: None
        """Brings the completer up to the text (a fast Tab or Enter may beat its update)."""

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        completer = self.completer
        if completer is not None and completer.open and key in ("up", "down", "tab", "enter"):
            self._in_popup(completer, key)
        elif not self._handled(key):
            await super()._on_key(event)
            return
        event.stop()
        event.prevent_default()

    def _in_popup(self, completer: Completer, key: str) -> None:
        """A key the open popup takes: move the choice, or take it."""
        if key in ("up", "down"):
            completer.move(-1 if key == "up" else 1)
            self.popup_changed()
            return
        self.complete_now()
        self._choose(completer, send=key == "enter")

    def _handled(self, key: str) -> bool:
        """Act on a key the prompt owns (send, queue, history, help); False for the rest."""
        if key == "ctrl+r" and self.completer is not None:
            self.completer.search(self.sent_prompts, self.text)
            self.popup_changed()
        elif key == "question_mark" and not self.text:
            self.post_message(self.Sent("/help"))
        elif key == "enter":
            self._take(self.Sent)
        elif key == "tab":
            self._take(self.QueueAsked)
        elif key in NEWLINE_KEYS:
            self.insert("\n")
        elif key == "up" and self.cursor_location[0] == 0 and self.sent_prompts:
            self._history_step(-1)
        elif key == "down" and self.cursor_location[0] == self.document.line_count - 1 \
                and self._walk is not None:
            self._history_step(1)
        else:
            return False
        return True

    def _choose(self, completer: Completer, *, send: bool) -> None:
        choice = completer.current
        if choice is None:  # the files are still being listed: Enter sends, Tab waits
            if send:
                self._take(self.Sent)
            return
        completer.close()
        self.popup_changed()
        before = self.text
        self.insert_choice(choice)
        if send and (choice.runs or self.text == before):  # nothing left to complete
            self._take(self.Sent)

    def insert_choice(self, choice: Choice) -> None:
        """Put ``choice`` in place of what it completes."""
        if choice.whole:
            self._set(choice.insert)
            return
        row, column = self.cursor_location
        self.replace(choice.insert, (row, choice.start), (row, column),
                     maintain_selection_offset=False)

    def _take(self, message: type[Sent] | type[QueueAsked]) -> None:
        text = self.text
        self._walk = None
        self.clear()
        self.post_message(message(text))

    def remember(self, text: str) -> None:
        """A sent prompt joins the history (consecutive repeats once)."""
        if text.strip() and (not self.sent_prompts or self.sent_prompts[-1] != text):
            self.sent_prompts.append(text)

    def _history_step(self, step: int) -> None:
        if self._walk is None:
            self._draft = self.text
            index = len(self.sent_prompts)
        else:
            index = self._walk
        index += step
        if index >= len(self.sent_prompts):
            self._walk = None
            self._set(self._draft)
            return
        self._walk = max(index, 0)
        self._set(self.sent_prompts[self._walk])

    def _set(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)
