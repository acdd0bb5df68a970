"""The prompt: multi-line input that keeps focus and every key, with history on Up/Down.

Enter sends (the app decides: a new turn, or a redirect while one streams);
Ctrl+J or Alt+Enter (and Shift+Enter where the terminal tells it apart) add a
new line; Tab queues the text; Up on the first line and Down on the last walk
the history of sent prompts (the draft being typed is kept and comes back).
A paste (bracketed) is inserted whole, in one edit.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual import events
from textual.message import Message
from textual.widgets import TextArea

NEWLINE_KEYS = frozenset({"ctrl+j", "alt+enter", "shift+enter", "ctrl+enter"})


class Prompt(TextArea):
    """The multi-line prompt (see the module doc)."""

    DEFAULT_CSS = """
    Prompt { height: auto; min-height: 3; max-height: 12; border: tall $accent; }
    """

    class Sent(Message):
        """Enter: the prompt's text (the prompt is cleared)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class QueueAsked(Message):
        """Tab: queue the prompt's text (the prompt is cleared)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, sent_prompts: Sequence[str] = (), *, id: str | None = None) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=False, tab_behavior="indent", id=id)
        self.sent_prompts: list[str] = list(sent_prompts)
        self._walk: int | None = None  # index into history while walking it
        self._draft = ""  # what was typed before the walk started

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        if key == "enter":
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
            await super()._on_key(event)
            return
        event.stop()
        event.prevent_default()

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
