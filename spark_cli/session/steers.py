"""Where the running turn's steers cut the answer, so the history reads as the channel saw it."""

from __future__ import annotations

from spark_cli.protocol.channel import Message


class SteerLog:
    """The running turn's steers, in order, and where each one cut the answer."""

    def __init__(self) -> None:
        self._pending: list[str] = []
        self._accepted: list[str] = []
        self.cuts: list[tuple[int, str]] = []  # (index into the answer's parts, steer text)

    def asked(self, text: str) -> None:
        self._pending.append(text)

    def accepted(self) -> None:
        if self._pending:
            self._accepted.append(self._pending.pop(0))

    def rejected(self) -> None:
        if self._pending:
            self._pending.pop(0)

    def committed(self, at: int) -> None:
        queue = self._accepted or self._pending
        if queue:
            self.cuts.append((at, queue.pop(0)))

    def conversation(self, parts: list[str], note: str, start: int = 0) -> list[Message]:
        """The answer from ``parts[start]`` on, cut where steers landed; ``note`` ends it."""
        out: list[Message] = []
        for at, text in self.cuts:
            if at < start:
                continue  # an earlier response's steer
            out.append(Message("assistant", "".join(parts[start:at])))
            out.append(Message("user", text))
            start = at
        out.append(Message("assistant", "".join(parts[start:]) + note))
        return out
