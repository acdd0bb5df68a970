"""What the transcript showed, kept and shown again: a resumed session looks as it did.

:class:`ShownLog` keeps each turn as ``ShownItem`` values (prompt, prose, edits with their
diffs, refusals, redirects, summary); :func:`item_view` makes one the block the painter writes."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import RenderableType
from rich.text import Text

from spark_cli.session.events import (
    BlockRejected,
    CompactionFinished,
    EditLanded,
    EditRefused,
    ProseDelta,
    ToolCallFinished,
    ToolLoopStopped,
    TurnCompleted,
    TurnFailed,
)
from spark_cli.session.interaction import InteractionEvent, Redirected, TurnStarted
from spark_cli.session.workspace.store import ShownItem
from spark_cli.tui.transcript.answer_view import answer_view

MAX_ITEMS = 20_000
"""Items kept (the oldest go first): about 2,000 turns."""
FIRST_TURNS = 30
MORE_TURNS = 30
PROMPT_LABELS = {"queued": "› (queued) ", "redirect": "› (redirect) "}
CALL_MARK = "⚙ "
"""Starts a tool call's line in the transcript."""


def _seconds(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"


def turn_summary(done: TurnCompleted) -> str:
    tps = f"{done.tokens_per_s:,.0f} tok/s" if done.tokens_per_s else "- tok/s"
    line = (f"TTFT {_seconds(done.ttft_s)} · {tps} · {done.output_tokens:,} tokens · "
            f"{done.applied} applied, {done.refused} refused · {_seconds(done.duration_s)}")
    if done.status != "completed":
        line += f" · {done.status}" + (f" ({done.reason})" if done.reason else "")
    if done.tool_calls:
        line += (f" · {done.tool_calls} tool call{'s' if done.tool_calls != 1 else ''} "
                 f"({_seconds(done.tool_time_s)} in spark)")
    if done.dropped_blocks:
        line += f" · {done.dropped_blocks} unfinished block(s) dropped"
    return line


def shown_item(event: InteractionEvent) -> ShownItem | None:
    """What a resumed session shows again of ``event`` (None: nothing; prose is kept whole)."""
    match event:
        case TurnStarted(text=text, why=why):
            return ShownItem("prompt", text, why)
        case EditLanded(outcome=outcome):
            return ShownItem("partial" if outcome.partial else "edit", outcome.message,
                             outcome.diff)
        case EditRefused(outcome=refused):
            return ShownItem("refused", refused.message)
        case BlockRejected(message=message):
            return ShownItem("rejected", message)
        case Redirected(text=text, how=how):
            return ShownItem("redirect", text, how)
        case TurnCompleted():
            return ShownItem("summary", turn_summary(event))
        case TurnFailed(message=message):
            return ShownItem("failed", message)
        case ToolCallFinished(line=line):
            return ShownItem("tool", CALL_MARK + line)
        case ToolLoopStopped(message=message):
            return ShownItem("tool", CALL_MARK + message)
        case CompactionFinished(line=line, outcome=outcome):
            return ShownItem("compacted" if outcome == "compacted" else "failed"
                             if outcome == "failed" else "summary", line.lstrip("✗ "))
    return None


class ShownLog:
    """The shown items of this conversation (see the module doc)."""

    def __init__(self, items: Sequence[ShownItem] = ()) -> None:
        self.items: list[ShownItem] = list(items)
        self._prose: list[str] = []

    def reset(self, items: Sequence[ShownItem] = ()) -> None:
        self.items = list(items)
        self._prose = []

    def on_event(self, event: InteractionEvent) -> None:
        if type(event) is ProseDelta:
            self._prose.append(event.text)
            return
        item = shown_item(event)
        if item is not None:
            self._flush()
            self._add(item)

    def _flush(self) -> None:
        if self._prose:
            text = "".join(self._prose).strip()
            self._prose = []
            if text:
                self._add(ShownItem("answer", text))

    def _add(self, item: ShownItem) -> None:
        self.items.append(item)
        if len(self.items) > MAX_ITEMS:
            del self.items[: len(self.items) - MAX_ITEMS]


def turns(items: Sequence[ShownItem]) -> list[list[ShownItem]]:
    """``items`` cut into turns, each starting at its prompt."""
    found: list[list[ShownItem]] = []
    for item in items:
        if item.kind == "prompt" or not found:
            found.append([])
        found[-1].append(item)
    return found


def item_view(item: ShownItem) -> RenderableType:
    """One item as the painter shows it."""
    # deferred: TUI launch
    from spark_cli.tui.transcript.edit_view import edit_view, refused_line, rejected_view

    match item.kind:
        case "prompt":
            return Text(PROMPT_LABELS.get(item.detail, "› ") + item.text, style="bold cyan")
        case "answer":
            return answer_view(item.text)
        case "edit" | "partial":
            return edit_view(item.text, item.detail, partial=item.kind == "partial")
        case "refused":
            return refused_line(item.text)
        case "rejected":
            return rejected_view(item.text)
        case "redirect":
            how = "steering in-band" if item.detail == "steer" else "stopping and resending"
            return Text(f"↪ {item.text}  ({how})", style="bold magenta")
        case "failed":
            return Text(f"✗ {item.text}", style="bold red")
        case "tool":
            return Text(f"  {item.text}", style="dim")
        case "compacted":
            return Text(f"⇣ {item.text}", style="bold green")
        case _:  # "summary", and kinds this version does not know
            return Text(item.text, style="dim")


class Replay:
    """A saved conversation's turns, from the end backwards: the last ``FIRST_TURNS`` at once,
    ``MORE_TURNS`` more each time the user scrolls to the top (``Transcript.more``)."""


    def __init__(self, items: Sequence[ShownItem]) -> None:
        self._turns = turns(items)

    @property
    def left(self) -> int:
        """Turns not shown yet."""
        return len(self._turns)

    def take(self, count: int) -> list[RenderableType]:
        """The blocks of the last ``count`` turns not shown yet (oldest first)."""
        cut = max(0, len(self._turns) - count)
        taken, self._turns = self._turns[cut:], self._turns[:cut]
        return [item_view(item) for turn in taken for item in turn]
