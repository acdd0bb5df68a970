"""A saved conversation's entries as JSON and back: each item (the one codec), and the turns as
they were (kept whole whatever the model is sent): what a rewind lists and rebuilds from."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast, get_args

from spark_cli.protocol.channel import ConversationItem, Message, Role, ToolCall, ToolOutput
from spark_cli.record import record

_ROLES = frozenset(get_args(Role))


class Unusable(ValueError):
    """A state file that is not ours or not well formed (the message says how)."""


def item_entry(item: ConversationItem) -> dict[str, str]:
    """A message ``{"role", "content"}``, or ``{"type": "tool_call" | "tool_output", ...}``."""
    if isinstance(item, ToolCall):
        return {"type": "tool_call", "call_id": item.call_id, "name": item.name,
                "arguments": item.arguments}
    if isinstance(item, ToolOutput):
        return {"type": "tool_output", "call_id": item.call_id, "output": item.output}
    return {"role": item.role, "content": item.content}


def parse_item(number: int, entry: object) -> ConversationItem:
    """One saved entry (see `item_entry`); `Unusable` names entry ``number`` when it is not."""
    if not isinstance(entry, dict):
        raise Unusable(f"message {number} is not an object")
    kind = entry.get("type")
    fields = {k: entry.get(k) for k in ("call_id", "name", "arguments", "output")}
    if kind == "tool_call":
        if not all(isinstance(fields[k], str) for k in ("call_id", "name", "arguments")):
            raise Unusable(f"message {number} is not a tool call {{call_id, name, arguments}}")
        return ToolCall(str(fields["call_id"]), str(fields["name"]), str(fields["arguments"]))
    if kind == "tool_output":
        if not (isinstance(fields["call_id"], str) and isinstance(fields["output"], str)):
            raise Unusable(f"message {number} is not a tool output {{call_id, output}}")
        return ToolOutput(fields["call_id"], fields["output"])
    role, content = entry.get("role"), entry.get("content")
    if role not in _ROLES or not isinstance(content, str):
        raise Unusable(f"message {number} is not {{role, content}} with a known role")
    return Message(cast(Role, role), content)


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
    """``history`` before ``turns[index]``, else (folded) the earlier turns from their records."""
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
