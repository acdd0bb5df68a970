"""The brain interface: what the bundled engine asks a brain, and what it gets back.

A brain turns one request (instructions + the lane's conversation) into answer
text. It yields text in any chunking; the engine splits it into token pieces
(:mod:`spark_cli.protocol.tokens`), paces them and stops at
``max_output_tokens``, so a brain never counts tokens or sleeps. A brain may
yield forever (``lorem``): the engine stops pulling at the limit.
"""

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
    """One item of the conversation as the lane knows it: a message (``user``,
    ``assistant``, …), a call (:data:`CALL`: ``name``, ``call_id``, arguments in
    ``text``) or a call's output (:data:`OUTPUT`: ``call_id``, the output in ``text``)."""

    role: str
    text: str
    call_id: str = ""
    name: str = ""


@record
class BrainCall:
    """A function call a brain makes (after its text) when ``BrainRequest.tools`` allows:
    the tool's name and the JSON arguments, paced like text. The call and its output come
    back in a later request's conversation as :data:`CALL` and :data:`OUTPUT` turns."""

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
    """Read from the instructions (see :func:`edit_format_from_instructions`)."""
    tools: frozenset[str] = frozenset()
    """The functions the brain may call now (declared, and allowed by ``tool_choice``)."""
    parallel_tool_calls: bool = True
    """False: at most one call per response."""
    seed: int | None = None
    """The request's ``seed``: the same seed, the same answer (slips included)."""
    slips: float = 0.0
    """The share of edit answers that make a mistake on purpose (``--slips``)."""

    @property
    def prompt(self) -> str:
        """The latest user message (what to answer now)."""
        for turn in reversed(self.conversation):
            if turn.role == "user":
                return turn.text
        return ""


class Brain(Protocol):
    """``answer`` runs in the engine's brain threads (other streams keep their pace).
    Optional class attributes: ``inline = True`` (chunks cost nothing: pulled on the event
    loop), ``inline_below = N`` (conversations up to N characters answered on the loop),
    ``pace = "deep"`` (paced at the engine's ``deep_tps`` / ``deep_ttft_ms``)."""

    name: str

    def answer(self, request: BrainRequest) -> Iterator[str | BrainCall]:
        """Yield the answer text (prose and edit blocks), in any chunking; then, when
        the request allows them, the function calls it makes."""
        ...


def edit_format_from_instructions(instructions: str) -> EditFormat:
    """Which edit format the client asked for: apply_patch when the instructions
    mention the envelope (``*** Begin Patch`` or ``apply_patch``), else SEARCH/REPLACE."""
    if "*** Begin Patch" in instructions or "apply_patch" in instructions:
        return "apply_patch"
    return "search_replace"
