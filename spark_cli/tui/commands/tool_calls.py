"""``/call [N]`` (Ctrl+O: the last one): what a tool call gave the model (at most
``SHOWN_LINES``), under its one line (``⚙ search TAX_RATE → 3 hits  #2``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.text import Text

from spark_cli.session.events import CommandFinished, ToolCallFinished
from spark_cli.tui.hud import duration
from spark_cli.tui.output import Output

SHOWN_LINES = 40


class CallOutputs:
    """Shows a tool call's output in the transcript."""

    def __init__(self, out: Output,
                 calls: Callable[[], Sequence[ToolCallFinished | CommandFinished]]) -> None:
        self.out = out
        self.calls = calls

    async def command(self, args: list[str]) -> None:
        calls = self.calls()
        if not calls:
            self.out.note("no tool calls yet: the model's calls show as ⚙ lines", "yellow")
            return
        if len(args) > 1 or (args and not (args[0].isdigit() and
                                          1 <= int(args[0]) <= len(calls))):
            self.out.note(f"usage: /call [N] (1 to {len(calls)}; none: the last)", "yellow")
            return
        number = int(args[0]) if args else len(calls)
        self.out.write(output_view(calls[number - 1], number))


def output_view(call: ToolCallFinished | CommandFinished, number: int) -> Text:
    """The call's header and what it gave the model (``SHOWN_LINES`` at most)."""
    lines = call.output.splitlines()
    if isinstance(call, CommandFinished):
        head, ok = f"$ #{number} {call.command}", call.ended == "exit" and call.exit_code == 0
    else:
        head, ok = f"⚙ #{number} {call.label}  ({duration(call.ms)})", call.ok
    text = Text(head + "\n", style="bold")
    body = "\n".join(lines[:SHOWN_LINES])
    text.append(body or "(no output)", style="" if ok else "yellow")
    if len(lines) > SHOWN_LINES:
        text.append(f"\n… {len(lines) - SHOWN_LINES} more lines", style="dim")
    return text
