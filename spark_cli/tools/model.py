"""The tools' plain values: a tool's declaration, a call's result, and a refused call."""

from __future__ import annotations

from typing import Any

from spark_cli.record import record


@record
class ToolDef:
    """A tool as a request declares it: ``parameters`` is its arguments' JSON schema."""

    name: str
    description: str
    parameters: dict[str, Any]


@record
class ToolResult:
    """What a call gave: ``output`` goes to the model (even when not ``ok``), ``summary``
    is one compact line for a UI ("3 hits", "src/app.py 1–40 of 120", "error: …")."""

    ok: bool
    output: str
    summary: str


class ToolFailure(Exception):
    """A call that cannot be answered: ``message`` for the model, ``short`` for the summary."""

    def __init__(self, message: str, short: str) -> None:
        super().__init__(message)
        self.message = message
        self.short = short

    def result(self) -> ToolResult:
        return ToolResult(False, self.message, f"error: {self.short}")
