"""The calls every `spark edit` renderer takes (text for people, JSON lines for programs), in
a turn's order: ``prose`` and ``event``, ``request_sent``, ``diff`` per file, ``summary``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from spark_cli.session.events import SessionEvent


class Renderer(Protocol):
    def prose(self, text: str) -> None:
        """Model prose as it streams (the hot path: called per delta)."""

    def event(self, event: SessionEvent) -> None:
        """Any session event but prose (edits, refusals, waits, the turn's end)."""

    def begin(self, info: Mapping[str, Any]) -> None:
        """The run is about to send its first request: ``model``, ``tools``, ``cwd``..."""

    def request_sent(self, at: float) -> None:
        """The request left at ``at`` (``time.perf_counter()``)."""

    def diff(self, path: str, diff: str) -> None:
        """The end diff of one changed file."""

    def note(self, text: str) -> None:
        """A quiet note (``--test`` progress, pipe-mode remarks)."""

    def line(self, text: str, style: str = "") -> None:
        """A status line (styled where the renderer can)."""

    def summary(self, data: Mapping[str, Any]) -> None:
        """The run summary; always last."""
