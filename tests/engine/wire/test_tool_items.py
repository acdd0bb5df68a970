"""The tool items of a request: calls, outputs, tools, tool_choice (Responses and Chat)."""

from __future__ import annotations

from typing import Any

import pytest

from spark_cli.engine.core.config import MAX_OUTPUT_TOKENS
from spark_cli.engine.wire import chat
from spark_cli.engine.wire import responses as wire
from spark_cli.engine.wire.responses import InputCall, InputMessage, InputOutput, WireError
from spark_cli.engine.wire.tool_defs import ToolChoice, parse_tool_choice
from spark_cli.protocol.channel import Message, ToolCall, ToolOutput, ToolSpec
from spark_cli.transport.bodies import chat_messages, chat_tools, responses_item, responses_tools

SEARCH = {"type": "function", "name": "search", "description": "Search the repo.",
          "parameters": {"type": "object", "properties": {"pattern": {"type": "string"}}}}
CALL = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "search",
        "arguments": '{"pattern": "x"}'}
OUTPUT = {"type": "function_call_output", "call_id": "call_1", "output": "a.py:1:x"}


def _refused(call: Any) -> WireError:
    with pytest.raises(WireError) as refused:
        call()
    assert refused.value.status == 400
    return refused.value


def test_create_reads_calls_outputs_and_tools() -> None:
    request = wire.parse_create({
        "model": "m", "tools": [SEARCH, {"type": "web_search"}], "tool_choice": "required",
        "parallel_tool_calls": False,
        "input": [{"role": "user", "content": "find x"}, CALL,
                  {**OUTPUT, "output": [{"type": "input_text", "text": "a.py:1:x"}]}],
    }, MAX_OUTPUT_TOKENS)
    assert request.input == (InputMessage("user", "find x"),
                             InputCall("call_1", "search", '{"pattern": "x"}', "fc_1"),
                             InputOutput("call_1", "a.py:1:x"))
    assert request.tools == (ToolSpec("search", "Search the repo.", SEARCH["parameters"]),)
    assert request.tool_choice == ToolChoice("required")
    assert request.parallel_tool_calls is False


def test_outputs_alone_are_a_valid_input() -> None:
    request = wire.parse_create({"model": "m", "previous_response_id": "resp_1",
                                 "input": [OUTPUT, {**OUTPUT, "call_id": "call_2"}]},
                                MAX_OUTPUT_TOKENS)
    assert [item.call_id for item in request.input] == ["call_1", "call_2"]  # type: ignore[union-attr]
    assert request.tool_choice == ToolChoice() and request.parallel_tool_calls


@pytest.mark.parametrize(("item", "param", "code"), [
    ({**CALL, "call_id": None}, "input[0].call_id", "missing_required_parameter"),
    ({**CALL, "name": 3}, "input[0].name", "invalid_type"),
    ({**CALL, "name": ""}, "input[0].name", "invalid_value"),
    ({k: v for k, v in CALL.items() if k != "arguments"}, "input[0].arguments",
     "missing_required_parameter"),
    ({**CALL, "id": 7}, "input[0].id", "invalid_type"),
    ({**OUTPUT, "output": None}, "input[0].output", "missing_required_parameter"),
    ({**OUTPUT, "output": 5}, "input[0].output", "invalid_type"),
    ({k: v for k, v in OUTPUT.items() if k != "call_id"}, "input[0].call_id",
     "missing_required_parameter"),
])
def test_bad_items_name_the_field(item: dict[str, Any], param: str, code: str) -> None:
    error = _refused(lambda: wire.parse_create({"model": "m", "input": [item]}, MAX_OUTPUT_TOKENS))
    assert (error.param, error.code) == (param, code)


def test_call_items_are_not_steering_input() -> None:
    error = _refused(lambda: wire.parse_steer({"input": [OUTPUT]}))
    assert error.param == "input[0].type"


@pytest.mark.parametrize(("value", "expected"), [
    (None, ToolChoice()), ("auto", ToolChoice()), ("none", ToolChoice("none")),
    ("required", ToolChoice("required")),
    ({"type": "function", "name": "search"}, ToolChoice("required", ("search",))),
    ({"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "a"}]},
     ToolChoice("auto", ("a",))),
    ({"type": "web_search_preview"}, ToolChoice()),
])
def test_tool_choice(value: Any, expected: ToolChoice) -> None:
    assert parse_tool_choice(value) == expected


def test_tool_choice_decides_what_may_be_called() -> None:
    assert not ToolChoice("none").allows("search")
    assert ToolChoice("required", ("search",)).allows("search")
    assert not ToolChoice("required", ("search",)).allows("read_file")
    assert parse_tool_choice({"type": "function", "function": {"name": "f"}},
                             chat=True) == ToolChoice("required", ("f",))


@pytest.mark.parametrize(("value", "param"), [
    ("sometimes", "tool_choice"), (3, "tool_choice"), ({}, "tool_choice.type"),
    ({"type": "function"}, "tool_choice.name"),
    ({"type": "allowed_tools", "mode": "never", "tools": []}, "tool_choice.mode"),
])
def test_bad_tool_choice(value: Any, param: str) -> None:
    assert _refused(lambda: parse_tool_choice(value)).param == param


CHAT_CALL = {"id": "call_1", "type": "function",
             "function": {"name": "search", "arguments": '{"pattern": "x"}'}}


def test_chat_reads_tool_calls_tool_messages_and_tools() -> None:
    request, _ = chat.parse_chat({
        "model": "m", "tool_choice": "none", "parallel_tool_calls": False,
        "tools": [{"type": "function", "function": {"name": "search", "parameters": {}}}],
        "messages": [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "find x"},
            {"role": "assistant", "content": None, "tool_calls": [CHAT_CALL]},
            {"role": "tool", "tool_call_id": "call_1", "content": "a.py:1:x"},
            {"role": "assistant", "content": "Looking.", "tool_calls": [
                {**CHAT_CALL, "id": "call_2"}]},
            {"role": "tool", "tool_call_id": "call_2",
             "content": [{"type": "text", "text": "no matches"}]},
        ],
    }, MAX_OUTPUT_TOKENS)
    assert request.instructions == "be brief"
    assert request.input == (
        InputMessage("user", "find x"), InputCall("call_1", "search", '{"pattern": "x"}'),
        InputOutput("call_1", "a.py:1:x"), InputMessage("assistant", "Looking."),
        InputCall("call_2", "search", '{"pattern": "x"}'), InputOutput("call_2", "no matches"))
    assert request.tools == (ToolSpec("search", "", {}),)
    assert request.tool_choice == ToolChoice("none") and not request.parallel_tool_calls


def _chat(messages: list[Any], **extra: Any) -> dict[str, Any]:
    return {"model": "m", "messages": messages, **extra}


USER = {"role": "user", "content": "x"}


@pytest.mark.parametrize(("body", "param"), [
    (_chat([USER, {"role": "assistant", "tool_calls": "no"}]), "messages[1].tool_calls"),
    (_chat([USER, {"role": "assistant", "tool_calls": [{"id": "c"}]}]),
     "messages[1].tool_calls[0].function"),
    (_chat([USER, {"role": "assistant", "tool_calls": [{**CHAT_CALL, "id": ""}]}]),
     "messages[1].tool_calls[0].id"),
    (_chat([USER, {"role": "assistant", "tool_calls": [
        {**CHAT_CALL, "function": {"name": "s", "arguments": 1}}]}]),
     "messages[1].tool_calls[0].function.arguments"),
    (_chat([USER, {"role": "tool", "tool_call_id": "call_9", "content": "y"}]),
     "messages[1].role"),
    (_chat([USER, {"role": "assistant", "tool_calls": [CHAT_CALL]},
            {"role": "tool", "tool_call_id": "call_1"}]), "messages[2].content"),
    (_chat([USER], tools=[{"type": "function"}]), "tools[0].function"),
    (_chat([USER], tools=[{"type": "function", "function": {}}]), "tools[0].function.name"),
    (_chat([USER], tools=[{"type": "web_search"}]), "tools[0].type"),
    (_chat([USER], tools=[{"type": "function", "function": {"name": "f", "strict": "y"}}]),
     "tools[0].function.strict"),
    (_chat([USER], tools=[{"type": "custom", "custom": {"name": "c", "format": "x"}}]),
     "tools[0].custom.format"),
    (_chat([USER], tools=[{"type": "custom", "custom": {"description": "d"}}]),
     "tools[0].custom.name"),
    (_chat([USER], parallel_tool_calls="yes"), "parallel_tool_calls"),
    (_chat([USER], tool_choice={"type": "function", "function": {}}),
     "tool_choice.function.name"),
])
def test_chat_bad_tool_fields(body: dict[str, Any], param: str) -> None:
    assert _refused(lambda: chat.parse_chat(body, MAX_OUTPUT_TOKENS)).param == param


def test_chat_tool_message_before_its_call_has_openais_wording() -> None:
    error = _refused(lambda: chat.parse_chat(_chat(
        [USER, {"role": "tool", "tool_call_id": "call_1", "content": "y"}]), MAX_OUTPUT_TOKENS))
    assert "must be a response to a preceeding message with 'tool_calls'" in error.message


def test_what_spark_sends_is_what_the_engine_reads() -> None:
    """The client's request encoding (``transport/bodies.py``) parses back to the same
    conversation on both wires."""
    spec = ToolSpec("search", "Search.", {"type": "object"})
    conversation = (Message("user", "find x"), Message("assistant", "Looking."),
                    ToolCall("call_1", "search", '{"pattern": "x"}'),
                    ToolCall("call_2", "read_file", '{"path": "a.py"}'),
                    ToolOutput("call_1", "a.py:1:x"), ToolOutput("call_2", "1\tx"))
    expected = (InputMessage("user", "find x"), InputMessage("assistant", "Looking."),
                InputCall("call_1", "search", '{"pattern": "x"}'),
                InputCall("call_2", "read_file", '{"path": "a.py"}'),
                InputOutput("call_1", "a.py:1:x"), InputOutput("call_2", "1\tx"))
    request = wire.parse_create({"model": "m", "tools": responses_tools([spec]),
                                 "input": [responses_item(e) for e in conversation]},
                                MAX_OUTPUT_TOKENS)
    assert request.input == expected and request.tools == (spec,)
    body, _ = chat.parse_chat({"model": "m", "tools": chat_tools([spec]),
                               "messages": chat_messages(conversation)}, MAX_OUTPUT_TOKENS)
    assert body.input == expected and body.tools == (spec,)
