"""The context report: what one turn's request holds, part by part, as plain data for a HUD."""

from __future__ import annotations

from spark_cli.record import record


@record
class ContextFile:
    """One file of the context report: why it was picked, its tokens, whether it was sent."""

    path: str
    why: str
    """``added``, ``named in the prompt`` or ``mentions <symbol>``."""
    tokens: int
    sent: bool
    """False: the model already has this exact content (not re-sent, 0 tokens)."""


@record
class Outline:
    """The repo map as sent, and how much of the repo it shows (the report's ``map``)."""

    text: str
    tokens: int
    files: int
    definitions: int
    available: int
    """Definitions the repo has outside the files sent (what the map chose from)."""


@record
class ContextReport:
    """What a request holds: the window, the budget, tokens per part (in the order they
    travel), the files; a sentence per thing left out to fit (``trimmed``) or for another
    reason (``notes``)."""

    window: int
    budget: int
    """The window less what is kept for the answer: the most a request may hold."""
    used: int
    parts: dict[str, int]
    files: tuple[ContextFile, ...]
    map: Outline
    trimmed: tuple[str, ...]
    notes: tuple[str, ...]
