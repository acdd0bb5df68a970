"""The queue above the prompt and ``/queue [edit|drop|up|down N | clear]``: what waits for
the running turn to end."""

from __future__ import annotations

from collections.abc import Callable

from spark_cli.session.interaction import Interaction, QueueChanged
from spark_cli.tui.output import Output

USAGE = "usage: /queue edit|drop|up|down N, /queue clear"


def queue_text(event: QueueChanged) -> str | None:
    """The panel's lines for ``event`` (None when the queue is empty)."""
    if not event.items:
        return None
    head = "queued (paused: Enter on an empty prompt resumes)" if event.paused else "queued"
    lines = [f"{head} · /queue edit N · /queue drop N · /queue up N"]
    lines += [f"  {i}. {item.splitlines()[0][:100]}" for i, item in enumerate(event.items, 1)]
    return "\n".join(lines)


class QueuePanel:
    """``/queue`` over ``interaction``; ``to_prompt`` takes a message back for editing."""

    def __init__(self, interaction: Interaction, out: Output,
                 to_prompt: Callable[[str], None]) -> None:
        self.interaction = interaction
        self.out = out
        self.to_prompt = to_prompt

    async def command(self, args: list[str]) -> None:
        queue = list(self.interaction.queue)
        if not args:
            if not queue:
                self.out.note("the queue is empty (Tab queues a message while a turn streams)")
            for i, item in enumerate(queue, 1):
                self.out.note(f"{i}. {item}")
            return
        verb, rest = args[0], args[1:]
        if verb == "clear":
            self.interaction.edit_queue([])
            return
        if verb not in ("edit", "drop", "up", "down") or len(rest) != 1 or not rest[0].isdigit():
            self.out.note(USAGE, "yellow")
            return
        index = int(rest[0]) - 1
        if not 0 <= index < len(queue):
            self.out.note(f"no queued message {index + 1} (the queue has {len(queue)})",
                          "yellow")
            return
        item = queue.pop(index)
        if verb == "edit":
            self.to_prompt(item)
        elif verb in ("up", "down"):
            queue.insert(max(0, index - 1) if verb == "up" else min(len(queue), index + 1), item)
        self.interaction.edit_queue(queue)
