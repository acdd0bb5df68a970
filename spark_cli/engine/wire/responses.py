"""The OpenAI Responses wire as the bundled engine reads it: the client-event parsers, the
input items, and the event type and error code constants. Pure data, no I/O."""

from __future__ import annotations

from typing import Any

from spark_cli.engine.wire.tool_defs import (
    ADDITIONAL_TOOLS,
    AUTO,
    ToolChoice,
    additional_tools,
    check_tools,
    function_specs,
    parse_tool_choice,
)
from spark_cli.engine.wire.wire_errors import (
    INVALID_TYPE,
    check_output_limit,
    loads_object,
    missing,
    optional_field,
    string_field,
)
from spark_cli.engine.wire.wire_errors import WireError as WireError
from spark_cli.engine.wire.wire_errors import bad_request as _bad
from spark_cli.protocol.channel import ToolSpec
from spark_cli.record import record

# Client event types.
CREATE = "response.create"
STEER = "response.steer"
CANCEL = "response.cancel"  # extension: bundled engine only
# Server event types.
CREATED = "response.created"
QUEUED = "response.queued"  # carries the extension field ``position``
IN_PROGRESS = "response.in_progress"
ITEM_ADDED = "response.output_item.added"
PART_ADDED = "response.content_part.added"
TEXT_DELTA = "response.output_text.delta"
TEXT_DONE = "response.output_text.done"
PART_DONE = "response.content_part.done"
ITEM_DONE = "response.output_item.done"
ARGS_DELTA = "response.function_call_arguments.delta"
ARGS_DONE = "response.function_call_arguments.done"
COMPLETED = "response.completed"
INCOMPLETE = "response.incomplete"
FAILED = "response.failed"
ERROR = "error"
STEER_ACCEPTED = "response.steer.accepted"
STEER_FAILED = "response.steer.failed"
TERMINAL_EVENTS = frozenset({COMPLETED, INCOMPLETE, FAILED})

EXTENSIONS = (CANCEL, QUEUED)
"""What the engine adds to the protocol (advertised in the handshake header)."""

# Error codes.
UNKNOWN_EVENT_TYPE = "unknown_event_type"
PREVIOUS_RESPONSE_NOT_FOUND = "previous_response_not_found"
RESPONSE_NOT_FOUND = "response_not_found"
CONNECTION_LIMIT_REACHED = "websocket_connection_limit_reached"
INVALID_API_KEY = "invalid_api_key"
NOT_FOUND = "not_found"
# Steer failure codes (the SDK's ResponseSteerErrorCode, plus ``no_active_response``).
STEER_NO_ACTIVE_RESPONSE = "no_active_response"
STEER_RESPONSE_NOT_FOUND = "response_not_found"
STEER_ALREADY_COMPLETED = "response_already_completed"
STEER_INVALID_INPUT = "invalid_input"
# incomplete_details.reason values.
REASON_MAX_OUTPUT_TOKENS = "max_output_tokens"
REASON_STEERED = "steered"
REASON_CANCELLED = "cancelled"  # extension: after response.cancel


@record
class InputMessage:
    """One message of a Responses ``input``."""

    role: str
    text: str


@record
class InputCall:
    """A ``function_call`` item: a call the model made earlier in the conversation."""

    call_id: str
    name: str
    arguments: str
    item_id: str | None = None


@record
class InputOutput:
    """A ``function_call_output`` item: the result of a call, under its ``call_id``."""

    call_id: str
    output: str


InputItem = InputMessage | InputCall | InputOutput
FUNCTION_CALL = "function_call"
FUNCTION_CALL_OUTPUT = "function_call_output"


@record
class CreateRequest:
    """A ``response.create`` (WebSocket) or ``POST /responses`` body."""

    model: str
    input: tuple[InputItem, ...]
    instructions: str = ""
    previous_response_id: str | None = None
    store: bool = False
    max_output_tokens: int | None = None
    stream_id: str | None = None
    generate: bool = True
    stream: bool = False
    tools: tuple[ToolSpec, ...] = ()
    """The request's ``function`` tools (top-level ``tools`` and ``additional_tools``)."""
    tool_choice: ToolChoice = AUTO
    parallel_tool_calls: bool = True
    seed: int | None = None
    """Not in OpenAI's Responses API: the bundled engine's, as Chat's ``seed``."""


@record
class SteerRequest:
    """A ``response.steer``: new input for the running response."""

    previous_response_id: str | None
    input: tuple[InputMessage, ...]
    raw_input: Any
    """The input as sent, echoed back in ``response.steer.failed``."""


@record
class CancelRequest:
    """A ``response.cancel`` (the bundled engine's extension)."""

    response_id: str | None


ClientEvent = CreateRequest | SteerRequest | CancelRequest

_ROLES = frozenset({"user", "assistant", "system", "developer"})
_TEXT_PARTS = frozenset({"input_text", "output_text", "text"})


def _content_text(content: Any, param: str) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise _bad(param, f"'{param}' must be a string or a list of text parts", INVALID_TYPE)
    texts: list[str] = []
    for j, part in enumerate(content):
        if not isinstance(part, dict) or part.get("type") not in _TEXT_PARTS:
            raise _bad(f"{param}[{j}]", f"'{param}[{j}]' must be an input_text part")
        text = part.get("text")
        if not isinstance(text, str):
            raise _bad(f"{param}[{j}].text", f"'{param}[{j}].text' must be a string", INVALID_TYPE)
        texts.append(text)
    return "".join(texts)


def _call_item(item: dict[str, Any], where: str) -> InputCall:
    """``{"type":"function_call","call_id","name","arguments","id"?}``."""
    call_id = string_field(item, "call_id", where)
    name = string_field(item, "name", where)
    arguments = string_field(item, "arguments", where, empty=True)
    return InputCall(call_id, name, arguments, optional_field(item, "id", str, "a string", where))


def _output_item(item: dict[str, Any], where: str) -> InputOutput:
    """``{"type":"function_call_output","call_id","output"}``."""
    call_id = string_field(item, "call_id", where)
    if "output" not in item or item["output"] is None:
        raise missing(f"{where}.output")
    return InputOutput(call_id, _content_text(item["output"], f"{where}.output"))


def parse_input(value: Any, param: str = "input", *,
                tools: list[ToolSpec] | None = None) -> tuple[InputItem, ...]:
    """A string, or message items (given ``tools``: calls, outputs, ``additional_tools``)."""
    if isinstance(value, str):
        return (InputMessage("user", value),)
    if not isinstance(value, list):
        raise _bad(param, f"'{param}' must be a string or a list of message items", INVALID_TYPE)
    items: list[InputItem] = []
    for i, item in enumerate(value):
        where = f"{param}[{i}]"
        if not isinstance(item, dict):
            raise _bad(where, f"'{where}' must be an object", INVALID_TYPE)
        kind = item.get("type", "message")
        if tools is not None:
            if kind == ADDITIONAL_TOOLS:
                tools += additional_tools(item, where)
                continue
            if kind == FUNCTION_CALL:
                items.append(_call_item(item, where))
                continue
            if kind == FUNCTION_CALL_OUTPUT:
                items.append(_output_item(item, where))
                continue
        if kind != "message":
            raise _bad(f"{where}.type", f"'{where}.type' {item.get('type')!r} is not supported")
        role = item.get("role")
        if role not in _ROLES:
            raise _bad(f"{where}.role", f"'{where}.role' must be one of {sorted(_ROLES)}")
        if "content" not in item:
            raise missing(f"{where}.content")
        items.append(InputMessage(role, _content_text(item["content"], f"{where}.content")))
    return tuple(items)


def parse_create(obj: dict[str, Any], maximum: int) -> CreateRequest:
    """Validate a ``response.create`` or ``POST /v1/responses`` body (``maximum``: output cap)."""
    model = string_field(obj, "model")
    generate = obj.get("generate", True)
    if not isinstance(generate, bool):
        raise _bad("generate", "'generate' must be a boolean", INVALID_TYPE)
    raw_input = obj.get("input")
    if raw_input is None and generate:
        raise missing("input")
    extra: list[ToolSpec] = []
    messages = parse_input(raw_input, tools=extra) if raw_input is not None else ()
    tools: tuple[ToolSpec, ...] = ()
    if obj.get("tools") is not None:
        check_tools(obj["tools"])
        tools = function_specs(obj["tools"])
    parallel = optional_field(obj, "parallel_tool_calls", bool, "a boolean")
    check_output_limit(obj.get("max_output_tokens"), "max_output_tokens", maximum)
    return CreateRequest(
        model=model,
        input=messages,
        instructions=optional_field(obj, "instructions", str, "a string") or "",
        previous_response_id=optional_field(obj, "previous_response_id", str, "a string"),
        store=bool(optional_field(obj, "store", bool, "a boolean")),
        max_output_tokens=obj.get("max_output_tokens"),
        stream_id=optional_field(obj, "stream_id", str, "a string"),
        generate=generate,
        stream=bool(optional_field(obj, "stream", bool, "a boolean")),
        tools=tools + tuple(extra),
        tool_choice=parse_tool_choice(obj.get("tool_choice")),
        parallel_tool_calls=parallel is not False,
        seed=optional_field(obj, "seed", int, "an integer"),
    )


def parse_steer(obj: dict[str, Any]) -> SteerRequest:
    previous = optional_field(obj, "previous_response_id", str, "a string")
    if "input" not in obj:
        raise missing("input")
    items = parse_input(obj["input"])
    messages = tuple(m for m in items if isinstance(m, InputMessage) and m.role == "user")
    if not messages or len(messages) != len(items):
        raise _bad("input", "steering input must be non-empty user messages")
    return SteerRequest(previous, messages, obj["input"])


def parse_client_event(text: str | bytes, maximum: int) -> ClientEvent:
    """One client frame (``maximum``: as :func:`parse_create`); raises :class:`WireError`."""
    obj = loads_object(text, "the frame")
    kind = obj.get("type")
    if kind == CREATE:
        return parse_create(obj, maximum)
    if kind == STEER:
        return parse_steer(obj)
    if kind == CANCEL:
        return CancelRequest(optional_field(obj, "response_id", str, "a string"))
    if kind is None:
        raise missing("type")
    raise WireError(400, UNKNOWN_EVENT_TYPE, f"unknown event type {str(kind)[:80]!r}", "type")
