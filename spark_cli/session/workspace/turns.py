"""This conversation's turns as they were (kept whole whatever the model is sent): what a
rewind lists and rebuilds from, and their JSON in a saved session."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from spark_cli.protocol.channel import ConversationItem
from spark_cli.record import record
from spark_cli.session.workspace.items import Unusable, item_entry, parse_item


@record
class TurnRecord:
    """One turn: the user's message, when, what it added to the conversation, what it changed."""

    text: str
    """The message as the user typed it (what a conversation rewind gives back to the prompt)."""
    time: float
    """Unix time the turn started: every undo batch from then on is the turn's or later."""
    items: tuple[ConversationItem, ...]
    """The message sent (files included) and all that came back, as it was."""
    batches: tuple[str, ...] = ()
    edited: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    """Files the turn's commands changed: not in the journal, so no rewind restores them."""
    shown_at: int = -1
    """Where the turn's prompt starts in what the front end showed (-1: not known)."""


def rewound(history: Sequence[ConversationItem], turns: Sequence[TurnRecord],
            index: int) -> list[ConversationItem]:
    """``history`` up to ``turns[index]``'s message, else (folded, dropped) the earlier turns
    rebuilt from their records."""
    first = turns[index].items[0]
    for at, item in enumerate(history):
        if item is first:
            return list(history[:at])
    return [item for turn in turns[:index] for item in turn.items]


def turn_entries(turns: Sequence[TurnRecord],
                 history: Sequence[ConversationItem]) -> list[dict[str, Any]]:
    """Each turn as JSON: ``items`` a count when they are ``history[at:at+n]``, else entries."""
    where = {id(item): n for n, item in enumerate(history)}
    entries = []
    for turn in turns:
        at = where.get(id(turn.items[0]), -1)
        span = tuple(history[at:at + len(turn.items)]) if at >= 0 else ()
        same = len(span) == len(turn.items) and all(
            a is b for a, b in zip(span, turn.items, strict=True))
        entries.append({"text": turn.text, "time": turn.time, "at": at,
                        "items": len(turn.items) if same else [item_entry(i) for i in turn.items],
                        "batches": list(turn.batches), "edited": list(turn.edited),
                        "commands": list(turn.commands), "shown_at": turn.shown_at})
    return entries


def parse_turns(raw: object, history: Sequence[ConversationItem]) -> tuple[TurnRecord, ...]:
    """The records `turn_entries` wrote; `Unusable` says which is not well formed."""
    if not isinstance(raw, list):
        raise Unusable("turns must be a list")
    return tuple(_turn(n, entry, history) for n, entry in enumerate(raw, 1))


def _strings(value: object) -> tuple[str, ...] | None:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def _turn(number: int, entry: object, history: Sequence[ConversationItem]) -> TurnRecord:
    bad = Unusable(f"turn {number} is not {{text, time, at, items, batches, edited, commands}}")
    if not isinstance(entry, dict):
        raise bad
    text, when, at, raw = entry.get("text"), entry.get("time"), entry.get("at"), entry.get("items")
    lists = [_strings(entry.get(k, [])) for k in ("batches", "edited", "commands")]
    shown_at = entry.get("shown_at", -1)
    if not (isinstance(text, str) and isinstance(when, (int, float)) and isinstance(at, int)
            and isinstance(shown_at, int)) or any(v is None for v in lists):
        raise bad
    if isinstance(raw, int) and not isinstance(raw, bool) and at >= 0 and raw > 0 \
            and at + raw <= len(history):
        items = tuple(history[at:at + raw])
    elif isinstance(raw, list) and raw:
        items = tuple(parse_item(n, e) for n, e in enumerate(raw, 1))
    else:
        raise bad
    batches, edited, commands = (v or () for v in lists)
    return TurnRecord(text, float(when), items, batches, edited, commands, shown_at)
