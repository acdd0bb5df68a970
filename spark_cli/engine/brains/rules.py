"""The ``rules`` brain: deterministic edits for a documented set of instructions.

For now it answers every request with the list of what it can do (help_text).
"""

from __future__ import annotations

from collections.abc import Iterator

from spark_cli.engine.brains.base import BrainRequest
from spark_cli.engine.brains.help_text import help_lines


class RulesBrain:
    name = "rules"

    def answer(self, request: BrainRequest) -> Iterator[str]:
        yield from help_lines("I could not match that instruction to one I know.")
