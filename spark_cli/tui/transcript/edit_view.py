"""How an edit shows in the transcript: a status line and a compact, highlighted diff.

Applied edits show their diff (at most ``MAX_DIFF_LINES`` lines, then a
pointer to ``/diff``), partial ones the hunks that did not apply, refusals
their reason; an undo lists what it restored. Pure: outcome in, renderable out.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.text import Text

from spark_cli.session.events import EditApplied, RefusedEdit

MAX_DIFF_LINES = 14


def _diff(diff: str) -> RenderableType:
    lines = diff.rstrip("\n").split("\n")
    body = "\n".join(lines[:MAX_DIFF_LINES])
    shown: list[RenderableType] = [Syntax(body, "diff", theme="ansi_dark", word_wrap=True,
                                          background_color="default")]
    if len(lines) > MAX_DIFF_LINES:
        shown.append(Text(f"  … {len(lines) - MAX_DIFF_LINES} more lines (/diff shows all)",
                          style="dim"))
    return Group(*shown)


def applied_view(outcome: EditApplied) -> RenderableType:
    return edit_view(outcome.message, outcome.diff, partial=outcome.partial)


def edit_view(message: str, diff: str, *, partial: bool = False) -> RenderableType:
    """An applied edit's status line and diff (also as a resumed session shows it)."""
    mark, style = ("~", "yellow") if partial else ("✓", "green")
    head = Text(f"{mark} {message}", style=f"bold {style}")
    if not diff:
        return head
    return Group(head, _diff(diff))


def refused_line(message: str) -> RenderableType:
    return Text(f"✗ refused: {message}", style="bold red")


def refused_view(outcome: RefusedEdit) -> RenderableType:
    return refused_line(outcome.message)


def rejected_view(message: str) -> RenderableType:
    return Text(f"✗ malformed edit block: {message}", style="red")
