"""Request items and tools in each wire's shape, checked against the official SDK's param types.

Each encoded dict must carry every key its SDK ``TypedDict`` requires and no key it does
not know, with the literal ``type`` it names: the shapes are OpenAI's, not ours.
"""

from __future__ import annotations

import typing
from typing import Any

from openai.types.chat import (
    ChatCompletionAssistantMessageParam,
    ChatCompletionFunctionToolParam,
    ChatCompletionMessageFunctionToolCallParam,
    ChatCompletionToolMessageParam,
)
from openai.types.responses import EasyInputMessageParam, FunctionToolParam
from openai.types.responses.response_function_tool_call_param import (
    ResponseFunctionToolCallParam,
)
from openai.types.responses.response_input_item_param import FunctionCallOutput
from openai.types.shared_params import FunctionDefinition

from spark_cli.protocol.channel import Message, ToolCall, ToolOutput, ToolSpec
from spark_cli.transport.bodies import chat_messages, chat_tools, responses_item, responses_tools

SPEC = ToolSpec("read_file", "Read a file.", {
    "type": "object",
    "properties": {"path": {"type": "string"}, "start_line": {"type": "integer"}},
    "required": ["path"]})
CALL = ToolCall("call_a", "read_file", '{"path": "a.py"}', "fc_a")


def conforms(value: dict[str, Any], shape: Any) -> None:
    """``value`` has every required key of the TypedDict ``shape``, no unknown key, and the
    ``type``/``role`` literal it declares."""
    hints = typing.get_type_hints(shape, include_extras=True)
    required = {key for key, hint in hints.items()
                if typing.get_origin(hint) is typing.Required
                or (shape.__total__ and typing.get_origin(hint) is not typing.NotRequired)}
    assert required <= set(value), (shape.__name__, required - set(value))
    assert set(value) <= set(hints), (shape.__name__, set(value) - set(hints))
    for field in ("type", "role"):
        if field in value:
            allowed = typing.get_args(_unwrap(hints[field]))
            assert value[field] in allowed, (shape.__name__, field, value[field], allowed)


def _unwrap(hint: Any) -> Any:
    while typing.get_origin(hint) in (typing.Required, typing.NotRequired):
        (hint,) = typing.get_args(hint)
    return hint


def test_responses_items_are_the_sdks_input_items() -> None:
    conforms(responses_item(Message("user", "hi")), EasyInputMessageParam)
    call = responses_item(CALL)
    conforms(call, ResponseFunctionToolCallParam)
    assert "id" not in call  # with store: false a server refuses item ids it did not keep
    conforms(responses_item(ToolOutput("call_a", "1: x = 1")), FunctionCallOutput)
    assert responses_item(ToolOutput("call_a", "1: x = 1")) == {
        "type": "function_call_output", "call_id": "call_a", "output": "1: x = 1"}


def test_responses_tools_are_function_tools_and_not_strict() -> None:
    (tool,) = responses_tools([SPEC])
    conforms(tool, FunctionToolParam)
    assert tool == {"type": "function", "name": "read_file", "description": "Read a file.",
                    "parameters": SPEC.parameters, "strict": False}


def test_chat_messages_fold_calls_into_the_assistant_message() -> None:
    outputs = [ToolOutput("call_a", "1: x = 1"), ToolOutput("call_b", "no hits")]
    second = ToolCall("call_b", "search", '{"pattern": "y"}')
    messages = chat_messages([Message("user", "hi"), Message("assistant", "Let me look."), CALL,
                              second, *outputs])
    _, assistant, *tools = messages
    conforms(assistant, ChatCompletionAssistantMessageParam)
    assert assistant["content"] == "Let me look."
    for call in assistant["tool_calls"]:
        conforms(call, ChatCompletionMessageFunctionToolCallParam)
    assert [c["id"] for c in assistant["tool_calls"]] == ["call_a", "call_b"]
    for message in tools:
        conforms(message, ChatCompletionToolMessageParam)
    assert tools[0] == {"role": "tool", "tool_call_id": "call_a", "content": "1: x = 1"}
    (bare,) = chat_messages([CALL])[:1]
    conforms(bare, ChatCompletionAssistantMessageParam)
    assert bare["content"] is None  # no preamble: content null beside the calls


def test_chat_tools_are_function_tools() -> None:
    (tool,) = chat_tools([SPEC])
    conforms(tool, ChatCompletionFunctionToolParam)
    conforms(tool["function"], FunctionDefinition)
    assert "strict" not in tool["function"]  # Chat's omitted strict is false already


def test_seed_and_temperature_are_sent_only_when_set() -> None:
    # deferred: only this test
    from spark_cli.protocol.channel import TurnRequest
    from spark_cli.transport.bodies import chat_body, responses_body

    plain = TurnRequest("m", (Message("user", "hi"),))
    sampled = TurnRequest("m", (Message("user", "hi"),), seed=7, temperature=0.6)
    for build in (chat_body, responses_body):
        assert "seed" not in build(plain, None) and "temperature" not in build(plain, None)
        assert {k: build(sampled, None)[k] for k in ("seed", "temperature")} == {
            "seed": 7, "temperature": 0.6}
