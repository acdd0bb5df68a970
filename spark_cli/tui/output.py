"""The narrow seams a TUI controller is handed instead of the app: the :class:`Output` it
writes to and plain callables (each is tested with a list-backed ``Output``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from rich.console import RenderableType


class Output(Protocol):
    """Where a controller's lines and blocks go (after what is on screen)."""

    def note(self, text: str, style: str = "dim") -> None:
        """One line of the app's own (a command's answer, a deep task's state)."""

    def write(self, renderable: RenderableType) -> None:
        """A block (a diff, a table)."""


class Ticker(Protocol):
    """A timer (Textual's ``Timer``): stopped when its job ends or is replaced."""

    def stop(self) -> None: ...


Every = Callable[[float, Callable[[], None]], Ticker]
"""Calls a function every ``s`` seconds on the UI's clock (``App.set_interval``)."""
Busy = Callable[[], bool]
"""True while a turn runs."""
