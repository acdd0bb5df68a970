"""Compaction as data: the older turns of a conversation folded into one summary message.

``Session.history`` keeps every turn as it was; a ``Compaction`` (``protocol.summaries``)
says what the model has instead of its first ``covers`` items (the summary, or nothing
when turns were dropped as the last resort). :func:`model_view` is what a request sends;
the saved session stores both, so ``--resume`` shows every turn and sends the summary.
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from pathlib import Path

from spark_cli.protocol.channel import ConversationItem, Message, TurnRequest
from spark_cli.protocol.summaries import (
    COMPACT_INSTRUCTIONS,
    FOCUS_PREFIX,
    SUMMARY_HEAD,
    Compaction,
)
from spark_cli.protocol.tokens import count_tokens
from spark_cli.session.config.settings import Settings
from spark_cli.session.context.tool_outputs import cut_output
from spark_cli.session.window.ledger import ledger

SUMMARY_SHARE = 0.12
"""Of the input budget, what the model's summary may take."""
LEDGER_FILES_SHARE = 0.15
"""Of the input budget, what the edited files' current content may take in the ledger."""
CUT_NOTE = "[summary cut to fit its budget: {kept:,} of {total:,} tokens kept]"
ASK = ("Summarise the conversation above for the assistant that carries it on. Its {turns} "
       "turn{s} will be replaced by your summary.")


def model_view(history: Sequence[ConversationItem],
               compaction: Compaction | None) -> tuple[ConversationItem, ...]:
    """The conversation as the model has it."""
    if compaction is None:
        return tuple(history)
    head = (Message("user", compaction.summary),) if compaction.summary else ()
    return (*head, *history[compaction.covers:])


def turn_starts(history: Sequence[ConversationItem], start: int = 0) -> list[int]:
    return [i for i in range(start, len(history))
            if type(history[i]) is Message and history[i].role == "user"]  # type: ignore[union-attr]


def split_at(history: Sequence[ConversationItem], compaction: Compaction | None,
             keep_turns: int) -> int | None:
    """Where a compaction keeping the last ``keep_turns`` turns whole cuts the history (the
    first item kept); None when nothing new is before that point."""
    start = compaction.covers if compaction is not None else 0
    starts = turn_starts(history, start)
    if keep_turns and len(starts) <= keep_turns:
        return None
    cut = starts[-keep_turns] if keep_turns else len(history)
    return cut if cut > start else None


def budgets(settings: Settings) -> tuple[int, int]:
    """The summary's and the ledger files' budgets, in spark's tokens."""
    room = settings.input_budget / max(settings.token_scale, 1e-9)
    return max(128, int(room * SUMMARY_SHARE)), max(256, int(room * LEDGER_FILES_SHARE))


def compaction_request(settings: Settings, history: Sequence[ConversationItem],
                       compaction: Compaction | None, cut: int, focus: str) -> TurnRequest:
    """What asks the model (``compact_model`` when set) to summarise the view up to ``cut``."""
    folded = model_view(history[:cut], compaction)
    turns = len(turn_starts(history[:cut], compaction.covers if compaction else 0))
    ask = ASK.format(turns=turns, s="s" if turns != 1 else "")
    if focus.strip():
        ask += f"\n{FOCUS_PREFIX}{focus.strip()}"
    summary_room, _ = budgets(settings)
    return TurnRequest(model=settings.compact_model or settings.provider.model,
                       messages=(*folded, Message("user", ask)),
                       instructions=COMPACT_INSTRUCTIONS, max_output_tokens=2 * summary_room)


def summary_message(settings: Settings, root: Path, history: Sequence[ConversationItem],
                    compaction: Compaction | None, cut: int, written: str) -> tuple[str, bool]:
    """The text of the one message that stands for ``history[:cut]``: the model's summary
    (cut to its budget, and said) then spark's ledger; and whether the summary was cut."""
    summary_room, file_room = budgets(settings)
    written = written.strip()
    shown = cut_output(written, summary_room)
    cut_short = shown != written
    if cut_short:
        shown = shown.rsplit("\n[output cut", 1)[0].rstrip()
        shown += "\n" + CUT_NOTE.format(kept=count_tokens(shown), total=count_tokens(written))
    book = ledger(model_view(history[:cut], compaction), root, file_room, keep=history[cut:])
    return f"{SUMMARY_HEAD}\n{shown}\n\n{book}\n", cut_short


def apply_shortened(history: MutableSequence[ConversationItem], compaction: Compaction | None,
                    shortened: Sequence[ConversationItem]) -> Compaction | None:
    """Keep in ``history`` what a request shortened to fit (old tool outputs, in place) and
    return what the model has now: the oldest whole turns of the view (a summary first) are
    left out of it, never out of the history."""
    view = model_view(history, compaction)
    head = 1 if compaction is not None and compaction.summary else 0
    start = compaction.covers if compaction is not None else 0
    lost = len(view) - len(shortened)
    if lost <= 0:
        history[start:] = shortened[head:]
        return compaction
    covers = start + lost - head
    history[covers:] = shortened
    return Compaction("", covers)
