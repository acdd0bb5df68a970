"""Tool definitions in a Responses request: the ``tools`` field and ``additional_tools`` items.

The engine's brains call no tools, so a request's tools are checked for shape
and then set aside: a malformed one is refused with a 400 naming the field, as
OpenAI refuses it, and a well-formed one changes nothing in the answer.

``additional_tools`` is an *input item* that carries tools where they become
available in the conversation, instead of the top-level ``tools`` list. Codex
CLI 0.171.0 sends its tools that way for most of its own model slugs (its
default, ``gpt-6.2-sol``, included), as the first item of ``input``::

    {"type": "additional_tools", "id": "at_…", "role": "developer",
     "tools": [{"type": "namespace", "name": "functions", "description": "",
                "tools": [{"type": "custom", "name": "exec", …},
                          {"type": "function", "name": "wait", …}]}, …]}

Shapes follow the official SDK's types (``openai`` 3.60: ``ToolParam``,
``NamespaceToolParam``, the beta ``AdditionalTools`` input item): every tool
has a known ``type``; ``function`` and ``custom`` tools need a ``name``; a
``namespace`` needs ``name``, ``description`` and ``tools`` (function and
custom tools only); an ``additional_tools`` item needs ``role: "developer"``
and ``tools``, and may carry ``id`` and ``agent`` (``{"agent_name"}``). The
hosted tools (``web_search``, ``mcp``, …) are checked for their ``type`` only:
the engine runs none of them.
"""

from __future__ import annotations

from typing import Any

from spark_cli.protocol.wire_errors import INVALID_TYPE, MISSING_REQUIRED_PARAMETER
from spark_cli.protocol.wire_errors import bad_request as _bad

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


def _string(obj: dict[str, Any], key: str, where: str, *, required: bool,
            empty: bool = True) -> None:
    value = obj.get(key)
    if value is None:
        if required:
            raise _bad(f"{where}.{key}", f"'{where}.{key}' is required",
                       MISSING_REQUIRED_PARAMETER)
        return
    if not isinstance(value, str):
        raise _bad(f"{where}.{key}", f"'{where}.{key}' must be a string", INVALID_TYPE)
    if not value and not empty:
        raise _bad(f"{where}.{key}", f"'{where}.{key}' must not be empty")


def _optional_kind(obj: dict[str, Any], key: str, where: str, kind: type, what: str) -> None:
    value = obj.get(key)
    if value is not None and not isinstance(value, kind):
        raise _bad(f"{where}.{key}", f"'{where}.{key}' must be {what}", INVALID_TYPE)


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        raise _bad(where, f"'{where}' is required", MISSING_REQUIRED_PARAMETER)
    if not isinstance(value, list):
        raise _bad(where, f"'{where}' must be a list of tools", INVALID_TYPE)
    return value


def _tool(tool: Any, where: str, allowed: frozenset[str]) -> None:
    if not isinstance(tool, dict):
        raise _bad(where, f"'{where}' must be an object", INVALID_TYPE)
    kind = tool.get("type")
    if kind is None:
        raise _bad(f"{where}.type", f"'{where}.type' is required", MISSING_REQUIRED_PARAMETER)
    if kind not in allowed:
        raise _bad(f"{where}.type", f"'{where}.type' {repr(kind)[:80]} is not a tool type here: "
                   f"one of {sorted(allowed)}")
    if kind in _NAMED or kind == NAMESPACE:
        _string(tool, "name", where, required=True, empty=False)
        _string(tool, "description", where, required=kind == NAMESPACE)
    if kind == "function":
        _optional_kind(tool, "parameters", where, dict, "a JSON schema object")
        _optional_kind(tool, "strict", where, bool, "a boolean")
    elif kind == "custom":
        _optional_kind(tool, "format", where, dict, "an object")
    elif kind == NAMESPACE:
        inner = _list(tool.get("tools"), f"{where}.tools")
        for i, member in enumerate(inner):
            _tool(member, f"{where}.tools[{i}]", _NAMED)


def check_tools(value: Any, param: str = "tools") -> None:
    """Check a list of tool definitions; a bad one raises :class:`WireError` (400,
    ``param`` naming the field, e.g. ``tools[2].name``)."""
    for i, tool in enumerate(_list(value, param)):
        _tool(tool, f"{param}[{i}]", TOOL_TYPES)


def check_additional_tools(item: dict[str, Any], where: str) -> None:
    """Check one ``additional_tools`` input item at ``where`` (e.g. ``input[0]``), as
    :func:`check_tools` checks its ``tools``."""
    role = item.get("role")
    if role is None:
        raise _bad(f"{where}.role", f"'{where}.role' is required", MISSING_REQUIRED_PARAMETER)
    if role != "developer":
        raise _bad(f"{where}.role", f"'{where}.role' must be 'developer' for an "
                   f"{ADDITIONAL_TOOLS} item")
    _string(item, "id", where, required=False)
    agent = item.get("agent")
    if agent is not None:
        if not isinstance(agent, dict):
            raise _bad(f"{where}.agent", f"'{where}.agent' must be an object", INVALID_TYPE)
        _string(agent, "agent_name", f"{where}.agent", required=True)
    check_tools(item.get("tools"), f"{where}.tools")
