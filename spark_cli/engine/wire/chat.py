"""A Chat Completions request as the bundled engine reads it: pure data, no I/O.

Parses and checks ``messages``, ``model``, ``stream``, ``stream_options.include_usage``,
``max_tokens`` / ``max_completion_tokens``, ``tools``, ``tool_choice`` and
``parallel_tool_calls``; the chunks it answers with are :mod:`.chat_events`'.
"""

from __future__ import annotations

from typing import Any

from spark_cli.engine.wire.responses import (
    INVALID_TYPE,
    InputCall,
    InputItem,
    InputMessage,
    InputOutput,
    WireError,
    parse_input,
)
from spark_cli.engine.wire.tool_defs import AUTO, ToolChoice, chat_function_specs, parse_tool_choice
from spark_cli.engine.wire.wire_errors import missing, optional_field, string_field
from spark_cli.protocol.channel import ToolSpec
from spark_cli.record import record

_INSTRUCTION_ROLES = ("system", "developer")


@record
class ChatRequest:
    """A Chat Completions request, as spark sends it and the engine reads it."""

    model: str
    messages: tuple[InputItem, ...]
    stream: bool = False
    include_usage: bool = False
    max_tokens: int | None = None
    tools: tuple[ToolSpec, ...] = ()
    tool_choice: ToolChoice = AUTO
    parallel_tool_calls: bool = True

    @property
    def instructions(self) -> str:
        """System/developer messages joined (how the brains read them)."""
        return "\n\n".join(m.text for m in self.messages
                            if isinstance(m, InputMessage) and m.role in _INSTRUCTION_ROLES)

    @property
    def conversation(self) -> tuple[InputItem, ...]:
        return tuple(m for m in self.messages
                     if not (isinstance(m, InputMessage) and m.role in _INSTRUCTION_ROLES))


def _bad(param: str, message: str, code: str = INVALID_TYPE) -> WireError:
    return WireError(400, code, message, param)


def _tool_calls(value: Any, where: str) -> list[InputCall]:
    """An assistant message's ``tool_calls`` (``{id, type, function: {name, arguments}}``)."""
    if not isinstance(value, list):
        raise _bad(where, f"'{where}' must be a list", INVALID_TYPE)
    calls = []
    for j, call in enumerate(value):
        at = f"{where}[{j}]"
        if not isinstance(call, dict):
            raise _bad(at, f"'{at}' must be an object")
        function = call.get("function")
        if not isinstance(function, dict):
            raise missing(f"{at}.function")
        arguments = {"arguments": "", **function}  # arguments may be left out
        calls.append(InputCall(string_field(call, "id", at),
                               string_field(function, "name", f"{at}.function"),
                               string_field(arguments, "arguments", f"{at}.function", empty=True)))
    return calls


def parse_messages(raw: list[Any]) -> tuple[InputItem, ...]:
    """Chat ``messages``: text messages as :func:`parse_input` reads them, an assistant's
    ``tool_calls`` (each an :class:`InputCall` after the message's text; its ``content`` may
    then be ``null``), and ``role: "tool"`` results (an :class:`InputOutput` each, which must
    answer an earlier call)."""
    items: list[InputItem] = []
    called: set[str] = set()
    for i, message in enumerate(raw):
        where = f"messages[{i}]"
        if not isinstance(message, dict):
            raise _bad(where, f"'{where}' must be an object")
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if not isinstance(call_id, str) or not call_id:
                raise missing(f"{where}.tool_call_id")
            if call_id not in called:
                raise _bad(f"{where}.role", "Invalid parameter: messages with role 'tool' must "
                           "be a response to a preceeding message with 'tool_calls'.",
                           "invalid_value")
            if "content" not in message:
                raise missing(f"{where}.content")
            text = parse_input([{"role": "user", "content": message["content"]}], where)[0]
            assert isinstance(text, InputMessage)
            items.append(InputOutput(call_id, text.text))
        elif role == "assistant" and message.get("tool_calls") is not None:
            calls = _tool_calls(message["tool_calls"], f"{where}.tool_calls")
            content = message.get("content")
            if content is not None:
                items += parse_input([{"role": "assistant", "content": content}], where)
            items += calls
            called.update(call.call_id for call in calls)
        else:
            items += parse_input([message], "messages")
    return tuple(items)


def parse_chat(obj: dict[str, Any]) -> ChatRequest:
    """Validate a ``POST /v1/chat/completions`` body (raises :class:`WireError`)."""
    model = string_field(obj, "model")
    if "messages" not in obj:
        raise missing("messages")
    raw = obj["messages"]
    if not isinstance(raw, list) or not raw:
        raise _bad("messages", "'messages' must be a non-empty list", "invalid_value")
    messages = parse_messages(raw)
    stream = bool(optional_field(obj, "stream", bool, "a boolean"))
    options = obj.get("stream_options") or {}
    if not isinstance(options, dict):
        raise _bad("stream_options", "'stream_options' must be an object")
    limit = obj.get("max_completion_tokens", obj.get("max_tokens"))
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise _bad("max_tokens", "'max_tokens' must be an integer >= 1", "invalid_value")
    tools = chat_function_specs(obj["tools"]) if obj.get("tools") is not None else ()
    parallel = optional_field(obj, "parallel_tool_calls", bool, "a boolean")
    return ChatRequest(
        model=model, messages=messages, stream=stream,
        include_usage=bool(options.get("include_usage")), max_tokens=limit, tools=tools,
        tool_choice=parse_tool_choice(obj.get("tool_choice"), chat=True),
        parallel_tool_calls=parallel is not False,
    )
