"""``/rewind`` (Esc Esc on an empty prompt): the user's messages newest first; ``/rewind N``
what each choice does; ``/rewind N code|conversation|both [--force]`` does it (docs/tui.md,
Rewind). The prompt is prefilled with the next step's command."""

from __future__ import annotations

import time
from collections.abc import Callable

from spark_cli.session.api import SessionApi
from spark_cli.tui.output import Busy, Output

SCOPES = ("code", "conversation", "both")
USAGE = "usage: /rewind, /rewind N, /rewind N code|conversation|both [--force]"


def _first(text: str, width: int = 90) -> str:
    return (text.strip().splitlines() or [""])[0][:width]


class Rewinder:
    """``/rewind`` over ``session``; ``rewound(index, text)`` shows the conversation cut back."""

    def __init__(self, session: SessionApi, out: Output, busy: Busy,
                 rewound: Callable[[int, str], None], to_prompt: Callable[[str], None]) -> None:
        self.session = session
        self.out = out
        self.busy = busy
        self.rewound = rewound
        self.to_prompt = to_prompt

    async def command(self, args: list[str]) -> None:
        if self.busy():
            self.out.note("a turn is running: Esc first, then /rewind", "yellow")
            return
        turns = self.session.turns
        force = "--force" in args
        words = [a for a in args if a != "--force"]
        if not words:
            self._list()
            return
        if not words[0].isdigit() or len(words) > 2 or (len(words) == 2
                                                        and words[1] not in SCOPES):
            self.out.note(USAGE, "yellow")
            return
        n = int(words[0])
        if not 1 <= n <= len(turns):
            self.out.note(f"no message {n}: this conversation has {len(turns)} (/rewind)",
                          "yellow")
            return
        if len(words) == 1:
            self._preview(n)
            return
        await self._rewind(len(turns) - n, words[1], force)

    def _list(self) -> None:
        turns = self.session.turns
        if not turns:
            self.out.note("nothing to rewind to: no message in this conversation yet")
            return
        self.out.note("your messages, newest first (/rewind N picks one):", "bold")
        for index in range(len(turns) - 1, -1, -1):
            turn = turns[index]
            when = time.strftime("%H:%M", time.localtime(turn.time))
            edited = f"  · edited {', '.join(turn.edited)}" if turn.edited else ""
            self.out.note(f"  {len(turns) - index:>3}  {when}  {_first(turn.text)}{edited}", "")
        self.to_prompt("/rewind ")

    def _preview(self, n: int) -> None:
        later = self.session.turns[-n:]
        edited = list(dict.fromkeys(f for t in later for f in t.edited))
        commands = list(dict.fromkeys(f for t in later for f in t.commands))
        self.out.note(f"› {_first(later[0].text)}", "bold cyan")
        self.out.note("  code: " + (f"restores {', '.join(edited)} as before this message "
                                    "(one batch: /undo takes it back)" if edited
                                    else "spark edited no file since"), "")
        if commands:
            self.out.note(f"  not restorable (changed by commands): {', '.join(commands)}",
                          "yellow")
        self.out.note(f"  conversation: drops {n} turn(s); the message comes back to the prompt",
                      "")
        self.out.note(f"  /rewind {n} code · /rewind {n} conversation · /rewind {n} both "
                      "(--force: also files changed since)")
        self.to_prompt(f"/rewind {n} ")

    async def _rewind(self, index: int, scope: str, force: bool) -> None:
        from spark_cli.session.workspace.changes import rewind_turns  # deferred: TUI launch

        if scope != "conversation":
            report = rewind_turns(self.session.root, self.session.turns, index, force=force)
            ok = report.status in ("rewound", "nothing")
            self.out.note(f"↶ code: {report.message}", "bold green" if report.status ==
                          "rewound" else "dim" if ok else "bold red")
            if report.not_restorable:
                self.out.note("  not restorable (changed by commands): "
                              + ", ".join(report.not_restorable), "yellow")
            if report.restored:
                self.session.files_changed()  # the model's view is stale: files are sent again
            if not ok:
                return
        if scope != "code":
            text = self.session.rewind(index)
            self.rewound(index, text)
            self.out.note(f"↶ conversation: back to before that message ({len(self.session.turns)}"
                          " turn(s) kept); it is in the prompt to edit", "bold green")
