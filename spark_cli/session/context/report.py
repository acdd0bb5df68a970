"""The context report: what one turn's request holds, part by part, as plain data for a HUD."""

from __future__ import annotations

from typing import Any

from spark_cli.record import record

PARTS = ("instructions", "AGENTS.md", "tools", "history", "files", "references", "map", "prompt")


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
    """The map ("" when nothing fits)."""
    tokens: int
    files: int
    definitions: int
    """Definitions shown."""
    available: int
    """Definitions the repo has outside the files sent (what the map chose from)."""


@record
class ContextReport:
    """What a request holds and why: the window, the budget, tokens per part, the files.

    Built by :mod:`.assemble` with every request (``BuiltRequest.context``).
    ``as_dict()`` is JSON-ready. Parts, in the order they travel:

    - ``instructions``: the system prompt (without AGENTS.md);
    - ``AGENTS.md``: the repo's AGENTS.md (0 when there is none);
    - ``tools``: the definitions of the model's tools (0 when tools are off);
    - ``history``: the earlier conversation (tool calls and outputs included);
    - ``files``: the files the user added and the ones the prompt names;
    - ``references``: files that mention a symbol the prompt names;
    - ``map``: the repo map;
    - ``prompt``: the instruction itself (with the previous turn's refusals).

    A file the model already has unchanged is listed with ``sent=False`` and
    costs 0 tokens. ``trimmed`` holds one sentence per thing left out to fit the
    window, ``notes`` one per thing left out for another reason (a named file
    that is binary, an ambiguous file name)."""

    window: int
    reserved_for_answer: int
    budget: int
    """``window - reserved_for_answer``: the most a request may hold."""
    used: int
    parts: dict[str, int]
    """Tokens per part (keys: ``PARTS``)."""
    files: tuple[ContextFile, ...]
    map: Outline
    trimmed: tuple[str, ...]
    notes: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "window": self.window, "reserved_for_answer": self.reserved_for_answer,
            "budget": self.budget, "used": self.used, "parts": dict(self.parts),
            "files": [{"path": f.path, "why": f.why, "tokens": f.tokens, "sent": f.sent}
                      for f in self.files],
            "map": {"tokens": self.map.tokens, "files": self.map.files,
                    "definitions": self.map.definitions, "available": self.map.available},
            "trimmed": list(self.trimmed), "notes": list(self.notes),
        }
