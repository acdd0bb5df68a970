"""A conversation item as JSON and back: the one codec of the saved conversation's entries."""

from __future__ import annotations

from typing import cast, get_args

from spark_cli.protocol.channel import ConversationItem, Message, Role, ToolCall, ToolOutput

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
