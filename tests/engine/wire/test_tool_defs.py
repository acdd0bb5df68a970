"""Tool definitions and ``additional_tools`` items: checked for shape; functions kept."""

from __future__ import annotations

import copy
import json
import typing
from typing import Any

import pytest
from openai.types.responses.tool_param import ToolParam

from spark_cli.engine.core.config import MAX_OUTPUT_TOKENS
from spark_cli.engine.wire import responses as wire
from spark_cli.engine.wire.responses import InputMessage, WireError
from spark_cli.engine.wire.tool_defs import TOOL_TYPES, additional_tools, check_tools

EXEC = {"type": "custom", "name": "exec", "description": "Run JavaScript",
        "format": {"type": "grammar", "syntax": "lark", "definition": "start: SOURCE"}}
WAIT = {"type": "function", "name": "wait", "description": "Waits on an exec cell.",
        "strict": False, "parameters": {"type": "object", "properties": {
            "cell_id": {"type": "string"}}, "required": ["cell_id"],
            "additionalProperties": False}}
SLEEP = {"type": "function", "name": "sleep", "description": "Pause.", "strict": False,
         "parameters": {"type": "object", "properties": {"duration_ms": {"type": "number"}}}}
CODEX_ITEM = {
    "type": "additional_tools", "id": "at_01a23dd7-bd86-7480-8167-cc6f70869942",
    "role": "developer",
    "tools": [
        {"type": "namespace", "name": "functions", "description": "", "tools": [EXEC, WAIT]},
        {"type": "namespace", "name": "clock", "description": "Tools for time.",
         "tools": [SLEEP]},
    ],
}
"""The shape Codex CLI 0.171.0 sends as ``input[0]`` for its default model (gpt-6.2-sol),
with the descriptions and schemas cut short."""
CODEX_BODY = {
    "type": "response.create", "model": "gpt-6.2-sol", "stream": True,
    "previous_response_id": "resp_1", "tool_choice": "auto", "parallel_tool_calls": False,
    "reasoning": {"effort": "low", "context": "all_turns"}, "store": False,
    "include": ["reasoning.encrypted_content"], "prompt_cache_key": "k",
    "text": {"verbosity": "low"}, "client_metadata": {"thread_id": "t"},
    "input": [
        CODEX_ITEM,
        {"type": "message", "id": "m1", "role": "developer",
         "content": [{"type": "input_text", "text": "You are Codex."}]},
        {"type": "message", "id": "m2", "role": "user",
         "content": [{"type": "input_text", "text": "stream lorem"}]},
    ],
}


def _refused(call: Any) -> WireError:
    with pytest.raises(WireError) as refused:
        call()
    assert refused.value.status == 400 and refused.value.kind == "invalid_request_error"
    assert refused.value.message
    return refused.value


def test_codex_request_is_accepted_and_its_tools_set_aside() -> None:
    request = wire.parse_client_event(json.dumps(CODEX_BODY), MAX_OUTPUT_TOKENS)
    assert request == wire.CreateRequest(
        model="gpt-6.2-sol", previous_response_id="resp_1", stream=True,
        input=(InputMessage("developer", "You are Codex."), InputMessage("user", "stream lorem")),
        parallel_tool_calls=False,
    )


def test_the_item_may_come_anywhere_and_more_than_once() -> None:
    plain = [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]
    spread = [plain[0], CODEX_ITEM, plain[1], {**CODEX_ITEM, "tools": []}]
    assert wire.parse_input(spread, tools=[]) == wire.parse_input(plain)


def test_optional_fields_of_the_item() -> None:
    minimal = {"type": "additional_tools", "role": "developer", "tools": [WAIT]}
    full = {**minimal, "id": None, "agent": {"agent_name": "worker"}}
    for item in (minimal, full):
        assert [t.name for t in additional_tools(item, "input[0]")] == [WAIT["name"]]
        assert wire.parse_input([item, {"role": "user", "content": "x"}], tools=[]) == (
            InputMessage("user", "x"),)  # and set aside


def test_top_level_tools_are_checked_alike() -> None:
    assert wire.parse_create({"model": "m", "input": "x", "tools": [WAIT, {"type": "web_search"}],
                              "tool_choice": "auto"},
                             MAX_OUTPUT_TOKENS).input == (InputMessage("user", "x"),)
    assert wire.parse_create({"model": "m", "input": "x", "tools": None}, MAX_OUTPUT_TOKENS).input
    error = _refused(lambda: wire.parse_create(
        {"model": "m", "input": "x", "tools": [WAIT, {"type": "function"}]}, MAX_OUTPUT_TOKENS))
    assert (error.code, error.param) == ("missing_required_parameter", "tools[1].name")


def _without(obj: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k != key}


def _codex_item_with(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    """CODEX_ITEM with the field at ``path`` set to ``value`` (``...``: removed)."""
    item = copy.deepcopy(CODEX_ITEM)
    target: Any = item
    for step in path[:-1]:
        target = target[step]
    if value is ...:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return item


@pytest.mark.parametrize(
    ("path", "value", "code", "param"),
    [
        (("role",), ..., "missing_required_parameter", "input[0].role"),
        (("role",), "user", "invalid_value", "input[0].role"),
        (("tools",), ..., "missing_required_parameter", "input[0].tools"),
        (("tools",), {"exec": EXEC}, "invalid_type", "input[0].tools"),
        (("id",), 7, "invalid_type", "input[0].id"),
        (("agent",), "worker", "invalid_type", "input[0].agent"),
        (("agent",), {}, "missing_required_parameter", "input[0].agent.agent_name"),
        (("tools", 1), "clock", "invalid_type", "input[0].tools[1]"),
        (("tools", 1, "type"), ..., "missing_required_parameter", "input[0].tools[1].type"),
        (("tools", 1, "type"), "toolbox", "invalid_value", "input[0].tools[1].type"),
        (("tools", 1, "name"), ..., "missing_required_parameter", "input[0].tools[1].name"),
        (("tools", 1, "description"), ..., "missing_required_parameter",
         "input[0].tools[1].description"),
        (("tools", 1, "tools"), ..., "missing_required_parameter", "input[0].tools[1].tools"),
        (("tools", 0, "tools", 0), {"type": "web_search"}, "invalid_value",
         "input[0].tools[0].tools[0].type"),
        (("tools", 0, "tools", 0), {"type": "namespace", "name": "n", "description": "",
                                    "tools": []},
         "invalid_value", "input[0].tools[0].tools[0].type"),
        (("tools", 0, "tools", 0, "name"), "", "invalid_value",
         "input[0].tools[0].tools[0].name"),
        (("tools", 0, "tools", 0, "name"), ["exec"], "invalid_type",
         "input[0].tools[0].tools[0].name"),
        (("tools", 0, "tools", 0, "format"), "lark", "invalid_type",
         "input[0].tools[0].tools[0].format"),
        (("tools", 0, "tools", 1, "parameters"), "{}", "invalid_type",
         "input[0].tools[0].tools[1].parameters"),
        (("tools", 0, "tools", 1, "strict"), "no", "invalid_type",
         "input[0].tools[0].tools[1].strict"),
        (("tools", 0, "tools", 1, "description"), 3, "invalid_type",
         "input[0].tools[0].tools[1].description"),
    ],
)
def test_a_malformed_item_names_the_field(path: tuple[Any, ...], value: Any, code: str,
                                          param: str) -> None:
    body = {**CODEX_BODY, "input": [_codex_item_with(path, value), *CODEX_BODY["input"][1:]]}
    error = _refused(lambda: wire.parse_create(body, MAX_OUTPUT_TOKENS))
    assert (error.code, error.param) == (code, param)
    assert param in error.message


def test_the_item_is_refused_where_only_messages_belong() -> None:
    steer = _refused(lambda: wire.parse_steer({"input": [CODEX_ITEM, "x"]}))
    assert (steer.code, steer.param) == ("invalid_value", "input[0].type")
    chat = _refused(lambda: wire.parse_input([CODEX_ITEM], "messages"))
    assert chat.param == "messages[0].type" and "additional_tools" in chat.message


def test_unknown_items_are_still_refused() -> None:
    for item in ({"type": "additional_toolz", "role": "developer", "tools": []},
                 {"type": "reasoning", "summary": []}):
        error = _refused(lambda item=item: wire.parse_create({"model": "m", "input": [item]},
                                                             MAX_OUTPUT_TOKENS))
        assert (error.code, error.param) == ("invalid_value", "input[0].type")
    error = _refused(lambda: check_tools("web_search"))
    assert (error.code, error.param) == ("invalid_type", "tools")


def test_tool_types_are_the_sdks() -> None:
    """Every tool type the installed official SDK can send is known (a newer SDK with a new
    type fails here: add it to TOOL_TYPES)."""
    def literals(annotation: Any) -> set[str]:
        if typing.get_origin(annotation) is typing.Literal:
            return set(typing.get_args(annotation))
        return set().union(*(literals(a) for a in typing.get_args(annotation)))

    sdk = set().union(*(literals(typing.get_type_hints(t, include_extras=True)["type"])
                        for t in typing.get_args(ToolParam)))
    assert sdk <= TOOL_TYPES and "function" in sdk
