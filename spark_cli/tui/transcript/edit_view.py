"""How an edit shows in the transcript: a status line and a highlighted diff of at most
``MAX_DIFF_LINES`` lines (partial edits: what did not apply; refusals: why)."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.text import Text

MAX_DIFF_LINES = 14


def diff_syntax(diff: str) -> Syntax:
    """``diff`` highlighted (without its trailing newlines)."""
    return Syntax(diff.rstrip("\n"), "diff", theme="ansi_dark", background_color="default",
                  word_wrap=True)


def _diff(diff: str) -> RenderableType:
    lines = diff.rstrip("\n").split("\n")
    shown: list[RenderableType] = [diff_syntax("\n".join(lines[:MAX_DIFF_LINES]))]
    if len(lines) > MAX_DIFF_LINES:
        shown.append(Text(f"  … {len(lines) - MAX_DIFF_LINES} more lines (/diff shows all)",
                          style="dim"))
    return Group(*shown)


def edit_view(message: str, diff: str, *, partial: bool = False) -> RenderableType:
    """An applied edit's status line and diff (also as a resumed session shows it)."""
    mark, style = ("~", "yellow") if partial else ("✓", "green")
    head = Text(f"{mark} {message}", style=f"bold {style}")
    if not diff:
        return head
    return Group(head, _diff(diff))


def refused_line(message: str) -> RenderableType:
    return Text(f"✗ refused: {message}", style="bold red")


def rejected_view(message: str) -> RenderableType:
    return Text(f"✗ malformed edit block: {message}", style="red")
