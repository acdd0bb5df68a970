"""``run_command``'s result: a finished command (head and tail kept within byte limits), and
the text the model gets for it (a status line and the output cut to a budget)."""

from __future__ import annotations

from collections import deque
from typing import Literal

from spark_cli.record import record

Ended = Literal["exit", "timeout", "stopped"]


class Kept:
    """The head and the tail of a stream of text, within byte limits."""

    def __init__(self, head_bytes: int, tail_bytes: int) -> None:
        self.head_room, self.tail_limit = head_bytes, tail_bytes
        self.head: list[str] = []
        self.tail: deque[str] = deque()
        self.tail_size = self.cut_bytes = self.cut_lines = 0

    def add(self, text: str) -> None:
        if self.head_room > 0:
            taken = text.encode()[:self.head_room].decode("utf-8", "ignore")
            self.head.append(taken)
            self.head_room = self.head_room - len(taken.encode()) if taken == text else 0
            text = text[len(taken):]
        if not text:
            return
        self.tail.append(text)
        self.tail_size += len(text.encode())
        while self.tail_size > self.tail_limit and self.tail:
            first, extra = self.tail[0], self.tail_size - self.tail_limit
            data = first.encode()
            dropped = data[:extra].decode("utf-8", "ignore") if len(data) > extra else first
            dropped = dropped or first[:1]  # never stall on a character wider than ``extra``
            size = len(dropped.encode())
            self.tail_size -= size
            self.cut_bytes += size
            self.cut_lines += dropped.count("\n")
            if dropped == first:
                self.tail.popleft()
            else:
                self.tail[0] = first[len(dropped):]


@record
class CommandRun:
    """How one command went: ``head`` + ``tail`` as it came (the middle cut), colourless, masked."""

    command: str
    ended: Ended
    exit_code: int | None
    """The exit status when ``ended == "exit"`` (negative: killed by that signal)."""
    duration_s: float
    head: str
    tail: str
    cut_bytes: int = 0
    cut_lines: int = 0
    timeout_s: float = 0.0
    sandboxed: bool = False

    @property
    def output(self) -> str:
        return self.head + _cut_note(self.head, self.cut_lines, self.cut_bytes) + self.tail

    @property
    def status(self) -> str:
        """The result's first line."""
        if self.ended == "timeout":
            return f"killed: timeout after {self.timeout_s:g} s · {self.duration_s:.1f} s"
        if self.ended == "stopped":
            return f"stopped by the user · {self.duration_s:.1f} s"
        return f"exit {self.exit_code} · {self.duration_s:.1f} s"


def _cut_note(head: str, lines: int, size: int) -> str:
    """The line standing for what was dropped after ``head`` ("" when nothing was)."""
    if not size:
        return ""
    gap = "" if not head or head.endswith("\n") else "\n"
    return f"{gap}[… {lines} lines ({size} bytes) cut …]\n"


def format_run(run: CommandRun, budget_chars: int) -> str:
    """The status line, then the output within ``budget_chars`` (cut at line ends where cheap)."""
    head, tail, lines, size = run.head, run.tail, run.cut_lines, run.cut_bytes
    room = max(budget_chars - len(run.status) - 60, 0)  # 60: the status's newline, the note
    if len(head) + len(tail) > room:
        if not size:  # one stream: its start and its end
            head, tail = head + tail, head + tail
        keep_tail = min(len(tail), room - min(len(head), room // 2))
        head, tail = head[:room - keep_tail], tail[len(tail) - keep_tail:]
        if (end := head.rfind("\n") + 1) > len(head) // 2:
            head = head[:end]
        if -1 < (start := tail.find("\n")) < len(tail) // 2:
            tail = tail[start + 1:]
        lines += (run.head + run.tail).count("\n") - head.count("\n") - tail.count("\n")
        size += len((run.head + run.tail).encode()) - len(head.encode()) - len(tail.encode())
    return f"{run.status}\n{head}{_cut_note(head, lines, size)}{tail}"
