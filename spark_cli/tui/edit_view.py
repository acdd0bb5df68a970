"""How an edit shows in the transcript: a status line and a compact, highlighted diff.

Applied edits show their diff (at most ``MAX_DIFF_LINES`` lines, then a
pointer to ``/diff``), partial ones the hunks that did not apply, refusals
their reason; an undo lists what it restored. Pure: outcome in, renderable out.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.text import Text

from spark_cli.session.events import EditApplied, RefusedOutcome

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
    mark, style = ("~", "yellow") if outcome.partial else ("✓", "green")
    head = Text(f"{mark} {outcome.message}", style=f"bold {style}")
    if not outcome.diff:
        return head
    return Group(head, _diff(outcome.diff))


def refused_view(outcome: RefusedOutcome) -> RenderableType:
    return Text(f"✗ refused: {outcome.message}", style="bold red")


def rejected_view(message: str) -> RenderableType:
    return Text(f"✗ malformed edit block: {message}", style="red")
