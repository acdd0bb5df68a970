"""``--judge deep``: the deep model ([deep] settings, the deep track's transport) names one of
the candidates the evidence left tied (the bundled engine: ``engine.brains.deep.tiebreak``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from spark_cli.protocol.channel import Message, TextDelta, TurnFinished, TurnRequest
from spark_cli.session.api import Connector
from spark_cli.session.config.settings import Settings
from spark_cli.session.race.candidate import Candidate
from spark_cli.session.race.judge import Pick

HEAD = "Best-of tiebreak"
ASK = (HEAD + ": each candidate change below applies, parses and passes the same checks, "
       "and changes as many lines. Which one does the instruction best? Answer "
       "`Candidate N: why`, in one line.\n\nInstruction: {instruction}\n")
_NAMED = re.compile(r"\bcandidate\s+(\d+)", re.I)


def prompt(instruction: str, tied: Sequence[Candidate]) -> str:
    return ASK.format(instruction=instruction) + "".join(
        f"\nCandidate {c.number}:\n```diff\n{''.join(f.diff for f in c.change.files)}```\n"
        for c in tied if c.change is not None)


async def deep_pick(settings: Settings, connect: Connector, instruction: str,
                    tied: Sequence[Candidate]) -> Pick:
    """The tied candidate the deep model names and its line, or (None, why it failed)."""
    request = TurnRequest(settings.provider.model,
                          (Message("user", prompt(instruction, tied)),), max_output_tokens=200)
    text: list[str] = []
    try:
        async with connect(settings) as channel:
            async for event in channel.stream(request):
                if type(event) is TextDelta:
                    text.append(event.text)
                elif type(event) is TurnFinished and event.status != "completed":
                    return None, f"its answer ended {event.status}"
    except Exception as exc:  # the boundary: a failed tiebreak falls back, it never fails
        return None, getattr(exc, "message", None) or str(exc) or type(exc).__name__
    answer = "".join(text).strip()
    numbers = {c.number for c in tied}
    for match in _NAMED.finditer(answer):
        if int(match.group(1)) in numbers:
            return int(match.group(1)), answer.splitlines()[0][:160]
    return None, f"its answer named none of candidates {sorted(numbers)}"
