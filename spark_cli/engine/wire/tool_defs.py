"""Tool definitions in a request (``tools``, ``additional_tools`` items, ``tool_choice``):
checked for shape as OpenAI checks them; the ``function`` tools kept for the brains."""

from __future__ import annotations

from typing import Any

from spark_cli.engine.wire.wire_errors import (
    INVALID_TYPE,
    missing,
    optional_field,
    string_field,
)
from spark_cli.engine.wire.wire_errors import bad_request as _bad
from spark_cli.protocol.channel import ToolSpec
from spark_cli.record import record

ADDITIONAL_TOOLS = "additional_tools"
"""The input item type that lists tools inside ``input``."""

_NAMED = frozenset({"function", "custom"})
NAMESPACE = "namespace"
TOOL_TYPES = frozenset({
    "function", "custom", NAMESPACE, "file_search", "computer", "computer_use_preview",
    "web_search", "web_search_2025_08_26", "web_search_preview",
    "web_search_preview_2025_03_11", "mcp", "code_interpreter", "programmatic_tool_calling",
    "image_generation", "local_shell", "shell", "tool_search", "apply_patch",
})
"""The tool types of the SDK's ``ToolParam`` union."""


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        raise missing(where)
    if not isinstance(value, list):
        raise _bad(where, f"'{where}' must be a list of tools", INVALID_TYPE)
    return value


def _tool(tool: Any, where: str, allowed: frozenset[str], *, chat: bool = False) -> None:
    """Check one tool; ``chat``: Chat's shape, the fields nested under its ``type``."""
    if not isinstance(tool, dict):
        raise _bad(where, f"'{where}' must be an object", INVALID_TYPE)
    kind = tool.get("type")
    if kind is None:
        raise missing(f"{where}.type")
    if kind not in allowed:
        raise _bad(f"{where}.type", f"'{where}.type' {repr(kind)[:80]} is not a tool type here: "
                   f"one of {sorted(allowed)}")
    if chat:
        where, tool = f"{where}.{kind}", tool.get(kind)
        if not isinstance(tool, dict):
            raise missing(where)
    if kind in _NAMED or kind == NAMESPACE:
        string_field(tool, "name", where)
        if kind == NAMESPACE:
            string_field(tool, "description", where, empty=True)
        else:
            optional_field(tool, "description", str, "a string", where)
    if kind == "function":
        optional_field(tool, "parameters", dict, "a JSON schema object", where)
        optional_field(tool, "strict", bool, "a boolean", where)
    elif kind == "custom":
        optional_field(tool, "format", dict, "an object", where)
    elif kind == NAMESPACE:
        inner = _list(tool.get("tools"), f"{where}.tools")
        for i, member in enumerate(inner):
            _tool(member, f"{where}.tools[{i}]", _NAMED)


def check_tools(value: Any, param: str = "tools") -> None:
    """Check tool definitions as the SDK's types shape them (hosted tools: their type only)."""
    for i, tool in enumerate(_list(value, param)):
        _tool(tool, f"{param}[{i}]", TOOL_TYPES)


def additional_tools(item: dict[str, Any], where: str) -> tuple[ToolSpec, ...]:
    """The functions of an ``additional_tools`` input item (as Codex sends them), checked."""
    role = item.get("role")
    if role is None:
        raise missing(f"{where}.role")
    if role != "developer":
        raise _bad(f"{where}.role", f"'{where}.role' must be 'developer' for an "
                   f"{ADDITIONAL_TOOLS} item")
    optional_field(item, "id", str, "a string", where)
    agent = item.get("agent")
    if agent is not None:
        if not isinstance(agent, dict):
            raise _bad(f"{where}.agent", f"'{where}.agent' must be an object", INVALID_TYPE)
        string_field(agent, "agent_name", f"{where}.agent", empty=True)
    check_tools(item.get("tools"), f"{where}.tools")
    return function_specs(item["tools"])


@record
class ToolChoice:
    """``tool_choice`` as read: its mode, and the functions it permits (``None``: all)."""

    mode: str = "auto"
    names: tuple[str, ...] | None = None

    def allows(self, name: str) -> bool:
        return self.mode != "none" and (self.names is None or name in self.names)


AUTO = ToolChoice()
_MODES = frozenset({"auto", "none", "required"})


def _spec(tool: dict[str, Any]) -> ToolSpec:
    parameters = tool.get("parameters")
    return ToolSpec(tool["name"], tool.get("description") or "",
                    parameters if isinstance(parameters, dict) else {})


def function_specs(value: Any) -> tuple[ToolSpec, ...]:
    """The ``function`` tools of a checked Responses ``tools`` list."""
    if not isinstance(value, list):
        return ()
    return tuple(_spec(t) for t in value if isinstance(t, dict) and t.get("type") == "function")


def _choice_names(choice: dict[str, Any], param: str, *, chat: bool) -> tuple[str, ...] | None:
    kind = choice.get("type")
    if kind == "function":
        holder = choice.get("function") if chat else choice
        where = f"{param}.function" if chat else param
        if not isinstance(holder, dict):
            raise missing(where)
        string_field(holder, "name", where)
        return (holder["name"],)
    if kind == "allowed_tools":
        tools = _list(choice.get("tools"), f"{param}.tools")
        names = []
        for tool in tools:
            inner = tool.get("function", tool) if chat and isinstance(tool, dict) else tool
            if isinstance(inner, dict) and isinstance(inner.get("name"), str):
                names.append(inner["name"])
        return tuple(names)
    return None  # a hosted tool or a custom one: none of the functions is forced


def parse_tool_choice(value: Any, param: str = "tool_choice", *,
                      chat: bool = False) -> ToolChoice:
    """A mode string or an object (Chat's ``function`` nests the name); 400 when bad."""
    if value is None:
        return AUTO
    if isinstance(value, str):
        if value not in _MODES:
            raise _bad(param, f"'{param}' must be one of {sorted(_MODES)} or an object")
        return ToolChoice(value)
    if not isinstance(value, dict):
        raise _bad(param, f"'{param}' must be a string or an object", INVALID_TYPE)
    string_field(value, "type", param)
    names = _choice_names(value, param, chat=chat)
    mode = value.get("mode", "auto") if value["type"] == "allowed_tools" else "required"
    if mode not in ("auto", "required"):
        raise _bad(f"{param}.mode", f"'{param}.mode' must be 'auto' or 'required'")
    return ToolChoice(mode if names is not None else "auto", names)


def chat_function_specs(value: Any) -> tuple[ToolSpec, ...]:
    """Check a Chat Completions ``tools`` list and return its functions."""
    for i, tool in enumerate(_list(value, "tools")):
        _tool(tool, f"tools[{i}]", _NAMED, chat=True)
    return tuple(_spec(t["function"]) for t in value if t["type"] == "function")
