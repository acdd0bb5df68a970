"""The completion popup above the prompt: the ``Completer``'s choices, the selected one
highlighted; one height while open (``ROWS``), so a key repaints it alone, with no layout."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from spark_cli.tui.prompt.completion import LISTING, NO_MATCH, Completer
from spark_cli.tui.prompt.fuzzy import LIMIT

ROWS = LIMIT


def popup_text(completer: Completer, width: int) -> Text:
    """The popup's lines for ``completer`` (``ROWS`` of them) at ``width`` columns."""
    text = Text(no_wrap=True, overflow="ellipsis")
    rows = 0
    if completer.waiting or completer.empty:
        text.append(LISTING if completer.waiting else NO_MATCH, "dim")
        rows = 1
    label_width = max((len(c.label) for c in completer.choices), default=0)
    label_width = min(label_width, max(12, width // 2))
    for i, choice in enumerate(completer.choices[:ROWS]):
        if rows:
            text.append("\n")
        style = "reverse" if i == completer.selected else ""
        text.append(f" {choice.label.ljust(label_width)[:label_width]} ", style or "bold")
        if choice.detail:
            text.append(f" {choice.detail}", style if style else "dim")
        rows += 1
    text.append("\n" * (ROWS - max(rows, 1)))
    return text


class Popup(Static):
    """Shows a completer's choices (see the module doc)."""

    DEFAULT_CSS = f"""
    Popup {{ height: {ROWS}; width: 1fr; background: $panel; display: none; }}
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", markup=False, id=id)

    def show(self, completer: Completer) -> None:
        if not completer.open:
            if self.display:
                self.display = False
            return
        self.update(popup_text(completer, self.size.width or 80), layout=False)
        if not self.display:
            self.display = True
