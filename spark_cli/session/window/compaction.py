"""A compaction's parts: where it cuts the conversation, the request for the summary, and the
one message that stands for the older turns (the summary, cut to its budget, then the ledger).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from spark_cli.protocol.channel import ConversationItem, Message, TurnRequest
from spark_cli.protocol.summaries import COMPACT_INSTRUCTIONS, FOCUS_PREFIX, SUMMARY_HEAD
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


def is_summary(item: ConversationItem) -> bool:
    return type(item) is Message and item.role == "user" and item.content.startswith(SUMMARY_HEAD)


def turn_starts(history: Sequence[ConversationItem]) -> list[int]:
    """Where each turn starts (a user's message; an earlier summary is none)."""
    return [i for i, item in enumerate(history)
            if type(item) is Message and item.role == "user" and not is_summary(item)]


def split_at(history: Sequence[ConversationItem], keep_turns: int) -> int | None:
    """The first item kept when the last ``keep_turns`` turns stay whole (None: nothing to do)."""
    start = 1 if history and is_summary(history[0]) else 0
    starts = turn_starts(history)
    if keep_turns and len(starts) <= keep_turns:
        return None
    cut = starts[-keep_turns] if keep_turns else len(history)
    return cut if cut > start else None


def budgets(settings: Settings) -> tuple[int, int]:
    """The summary's and the ledger files' budgets, in spark's tokens."""
    room = settings.input_budget / max(settings.token_scale, 1e-9)
    return max(128, int(room * SUMMARY_SHARE)), max(256, int(room * LEDGER_FILES_SHARE))


def compaction_request(settings: Settings, history: Sequence[ConversationItem], cut: int,
                       focus: str) -> TurnRequest:
    """What asks the model (``compact_model`` when set) to summarise ``history[:cut]``."""
    turns = len(turn_starts(history[:cut]))
    ask = ASK.format(turns=turns, s="s" if turns != 1 else "")
    if focus.strip():
        ask += f"\n{FOCUS_PREFIX}{focus.strip()}"
    summary_room, _ = budgets(settings)
    return TurnRequest(model=settings.compact_model or settings.provider.model,
                       messages=(*history[:cut], Message("user", ask)),
                       instructions=COMPACT_INSTRUCTIONS, max_output_tokens=2 * summary_room)


def summary_message(settings: Settings, root: Path, history: Sequence[ConversationItem],
                    cut: int, written: str) -> tuple[str, bool]:
    """The message for ``history[:cut]`` (summary, then ledger) and whether the summary was cut."""
    summary_room, file_room = budgets(settings)
    written = written.strip()
    shown = cut_output(written, summary_room)
    cut_short = shown != written
    if cut_short:
        shown = shown.rsplit("\n[output cut", 1)[0].rstrip()
        shown += "\n" + CUT_NOTE.format(kept=count_tokens(shown), total=count_tokens(written))
    book = ledger(history[:cut], root, file_room, keep=history[cut:])
    return f"{SUMMARY_HEAD}\n{shown}\n\n{book}\n", cut_short
