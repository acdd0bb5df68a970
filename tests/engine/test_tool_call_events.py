"""The wire shapes of function calls, as pure builders: Responses events and Chat chunks.

Each Responses event validates against the official SDK's ``ResponsesServerEvent``
union; each Chat chunk against ``ChatCompletionChunk``, and the SDK's own stream
accumulator rebuilds the calls from them.
"""

from __future__ import annotations

import json
from typing import Any

from openai.lib.streaming.chat._completions import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk
from openai.types.responses.responses_server_event import ResponsesServerEvent
from pydantic import TypeAdapter

from spark_cli.engine.core.pieces import argument_pieces
from spark_cli.engine.wire.chat import ChatEvents
from spark_cli.engine.wire.response_events import ResponseEvents, usage_object
from spark_cli.engine.wire.responses import CreateRequest, InputCall
from spark_cli.protocol.channel import ToolSpec

EVENTS: TypeAdapter[Any] = TypeAdapter(ResponsesServerEvent)
ARGS = json.dumps({"pattern": "\\btotal_price\\b", "note": "a\nb"})
CALL = InputCall("call_1", "search", ARGS, "fc_1")
USAGE = usage_object(10, 20)


def _decoded(events: list[tuple[str, str]]) -> list[dict[str, Any]]:
    out = []
    for kind, payload in events:
        obj = json.loads(payload)
        assert obj["type"] == kind
        EVENTS.validate_python(obj)
        out.append(obj)
    return out


def test_a_preamble_then_a_call() -> None:
    events = ResponseEvents("resp_1", CreateRequest("m", (), tools=(ToolSpec("search", "", {}),)))
    pieces = argument_pieces(ARGS)
    built = [*events.started(), *events.text_opened(), events.delta("Looking.\n"),
             *events.text_closed("Looking.\n"), *events.call_opened(CALL),
             *(events.call_delta(p) for p in pieces), *events.call_closed(),
             *events.finished("Looking.\n", "completed", USAGE)]
    objs = _decoded(built)
    assert [o["type"] for o in objs] == [
        "response.in_progress", "response.output_item.added", "response.content_part.added",
        "response.output_text.delta", "response.output_text.done", "response.content_part.done",
        "response.output_item.done", "response.output_item.added",
        *["response.function_call_arguments.delta"] * len(pieces),
        "response.function_call_arguments.done", "response.output_item.done",
        "response.completed"]
    assert [o["sequence_number"] for o in objs] == list(range(len(objs)))
    added = objs[7]
    assert added["output_index"] == 1 and added["item"] == {
        "id": "fc_1", "type": "function_call", "status": "in_progress", "arguments": "",
        "call_id": "call_1", "name": "search"}
    deltas = [o for o in objs if o["type"].endswith("arguments.delta")]
    assert all(d["item_id"] == "fc_1" and d["output_index"] == 1 for d in deltas)
    assert "".join(d["delta"] for d in deltas) == ARGS
    done = objs[-3]
    assert (done["arguments"], done["name"], done["item_id"]) == (ARGS, "search", "fc_1")
    final = objs[-1]["response"]
    assert [i["type"] for i in final["output"]] == ["message", "function_call"]
    assert final["output"][1]["status"] == "completed" and final["output"][1]["arguments"] == ARGS
    assert final["tools"][0]["name"] == "search" and final["tool_choice"] == "auto"


def test_calls_alone_and_a_call_cut_short() -> None:
    events = ResponseEvents("resp_2", CreateRequest("m", ()))
    second = InputCall("call_2", "read_file", '{"path": "a.py"}', "fc_2")
    built = [*events.started(), *events.call_opened(CALL), events.call_delta(ARGS),
             *events.call_closed(), *events.call_opened(second), events.call_delta('{"pa'),
             *events.finished("", "incomplete", USAGE, "max_output_tokens")]
    objs = _decoded(built)
    assert objs[1]["output_index"] == 0 and objs[5]["output_index"] == 1
    final = objs[-1]["response"]
    assert [(i["call_id"], i["status"], i["arguments"]) for i in final["output"]] == [
        ("call_1", "completed", ARGS), ("call_2", "incomplete", '{"pa')]
    assert objs[-2]["type"] == "response.output_item.done"
    assert events.calls == (CALL, InputCall("call_2", "read_file", '{"pa', "fc_2"))


def test_no_tools_keeps_the_empty_message() -> None:
    events = ResponseEvents("resp_3", CreateRequest("m", ()))
    objs = _decoded([*events.started(), *events.finished("", "completed", USAGE)])
    assert [o["type"] for o in objs][1:4] == ["response.output_item.added",
                                              "response.content_part.added",
                                              "response.output_text.done"]
    assert objs[-1]["response"]["output"][0]["type"] == "message"
    assert objs[-1]["response"]["tools"] == [] and objs[-1]["response"]["tool_choice"] == "none"


def _chat_chunks(events: ChatEvents, built: list[tuple[str, str]]) -> list[ChatCompletionChunk]:
    chunks = []
    for kind, payload in built:
        assert kind == "data"
        if payload != "[DONE]":
            chunks.append(ChatCompletionChunk.model_validate_json(payload))
    return chunks


def test_chat_chunks_for_calls_rebuild_in_the_sdk() -> None:
    events = ChatEvents("chatcmpl_1", "m", include_usage=True)
    second = InputCall("call_2", "read_file", '{"path": "a.py"}')
    built = [*events.started(), events.delta("Looking.\n"), *events.call_opened(CALL),
             *(events.call_delta(p) for p in argument_pieces(ARGS)), *events.call_closed(),
             *events.call_opened(second), events.call_delta(second.arguments),
             *events.call_closed(), *events.finished("Looking.\n", "completed", USAGE)]
    chunks = _chat_chunks(events, built)
    first = chunks[2].choices[0].delta.tool_calls
    assert first is not None and first[0].model_dump(exclude_none=True) == {
        "index": 0, "id": "call_1", "type": "function",
        "function": {"name": "search", "arguments": ""}}
    piece = chunks[3].choices[0].delta.tool_calls
    assert piece is not None and piece[0].id is None and piece[0].function is not None
    assert piece[0].function.name is None
    state = ChatCompletionStreamState()
    for chunk in chunks:
        state.handle_chunk(chunk)
    final = state.get_final_completion().choices[0]
    assert final.finish_reason == "tool_calls"
    assert final.message.content == "Looking.\n"
    assert [(c.id, c.function.name, c.function.arguments)
            for c in final.message.tool_calls or []] == [
        ("call_1", "search", ARGS), ("call_2", "read_file", '{"path": "a.py"}')]
    assert events.final is not None
    message = events.final["choices"][0]["message"]
    assert message["tool_calls"][1]["function"]["arguments"] == '{"path": "a.py"}'


def test_argument_pieces_are_tokens_some_cut_inside_an_escape() -> None:
    pieces = argument_pieces(ARGS)
    assert "".join(pieces) == ARGS and len(pieces) > 10
    assert any(p.endswith("\\") and not p.endswith("\\\\") for p in pieces)
    assert argument_pieces("") == []
