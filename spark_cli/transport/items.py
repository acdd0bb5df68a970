"""A conversation's items and tools in each wire's request shape (pure functions).

Responses takes every item as an ``input`` entry: ``message``, ``function_call``
and ``function_call_output``. Chat Completions folds an assistant message and
the calls after it into one assistant message with ``tool_calls``, and sends
each output as a ``role: "tool"`` message. The tools themselves are declared
``{"type": "function", "name", ..., "strict": false}`` on Responses and
``{"type": "function", "function": {...}}`` on Chat.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from spark_cli.protocol.channel import ConversationItem, Message, ToolCall, ToolOutput, ToolSpec


def responses_item(entry: ConversationItem) -> dict[str, str]:
    """One conversation item as a Responses ``input`` item."""
    if isinstance(entry, Message):
        return {"type": "message", "role": entry.role, "content": entry.content}
    if isinstance(entry, ToolCall):
        return {"type": "function_call", "call_id": entry.call_id, "name": entry.name,
                "arguments": entry.arguments}
    return {"type": "function_call_output", "call_id": entry.call_id, "output": entry.output}


def responses_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """The tools as a Responses ``tools`` field.

    ``strict`` is sent as ``false`` on Responses because there an omitted ``strict``
    is not false: the server normalises a schema it can make strict into strict mode
    (every property required, so optional parameters such as ``read_file``'s
    ``start_line`` would be filled in). Chat Completions treats an omitted ``strict``
    as false (the SDK's ``FunctionDefinition.strict`` is optional), so nothing is
    added there. A replayed ``function_call`` carries no ``id``: with ``store: false``
    the server refuses item ids it did not keep.
    """
    return [{"type": "function", "name": t.name, "description": t.description,
             "parameters": t.parameters, "strict": False} for t in tools]


def chat_messages(items: Sequence[ConversationItem]) -> list[dict[str, Any]]:
    """The conversation as Chat Completions ``messages`` (instructions not included)."""
    out: list[dict[str, Any]] = []
    for entry in items:
        if isinstance(entry, Message):
            out.append({"role": entry.role, "content": entry.content})
        elif isinstance(entry, ToolCall):
            call = {"id": entry.call_id, "type": "function",
                    "function": {"name": entry.name, "arguments": entry.arguments}}
            last = out[-1] if out else None
            if last is not None and last["role"] == "assistant":
                last.setdefault("tool_calls", []).append(call)
            else:
                out.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif isinstance(entry, ToolOutput):
            out.append({"role": "tool", "tool_call_id": entry.call_id, "content": entry.output})
    return out


def chat_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """The tools as a Chat Completions ``tools`` field."""
    return [{"type": "function", "function": {"name": t.name, "description": t.description,
                                              "parameters": t.parameters}} for t in tools]
