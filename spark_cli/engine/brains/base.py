"""The brain interface: a brain turns one request into answer text in any chunking; the
engine splits, paces and limits it, so a brain never counts tokens or sleeps."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal, Protocol

from spark_cli.record import record

EditFormat = Literal["search_replace", "apply_patch"]
CALL = "function_call"
"""The role of a turn that is one of the model's calls (``text``: its arguments)."""
OUTPUT = "function_call_output"
"""The role of a turn that is a call's result (``text``: the output)."""


@record
class BrainTurn:
    """One item of the conversation: a message, a :data:`CALL` or an :data:`OUTPUT`."""

    role: str
    text: str
    call_id: str = ""
    name: str = ""


@record
class BrainCall:
    """A function call a brain makes after its text, when ``BrainRequest.tools`` allows."""

    name: str
    arguments: str


@record
class BrainRequest:
    """What a brain is asked: the model, the instructions and the lane's conversation."""

    model: str
    instructions: str
    conversation: tuple[BrainTurn, ...]
    """Everything the lane has seen, oldest first; the last user turn is the ask."""
    edit_format: EditFormat
    tools: frozenset[str] = frozenset()
    """The functions the brain may call now (declared, and allowed by ``tool_choice``)."""
    parallel_tool_calls: bool = True
    seed: int | None = None
    """The request's ``seed``: the same seed, the same answer (slips included)."""
    slips: float = 0.0

    @property
    def prompt(self) -> str:
        """The latest user message (what to answer now)."""
        for turn in reversed(self.conversation):
            if turn.role == "user":
                return turn.text
        return ""


class Brain(Protocol):
    """``answer`` runs in the brain threads. Optional class attributes: ``inline = True``
    (pulled on the event loop), ``inline_below = N`` (conversations up to N characters
    answered on the loop), ``pace = "deep"`` (paced at ``deep_tps`` / ``deep_ttft_ms``)."""

    name: str

    def answer(self, request: BrainRequest) -> Iterator[str | BrainCall]:
        """Yield the answer text, then the function calls it makes."""
        ...


def edit_format_from_instructions(instructions: str) -> EditFormat:
    """apply_patch when the instructions mention it, else SEARCH/REPLACE."""
    if "*** Begin Patch" in instructions or "apply_patch" in instructions:
        return "apply_patch"
    return "search_replace"
