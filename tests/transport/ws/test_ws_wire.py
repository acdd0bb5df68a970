"""What the channel puts on the wire: the ``response.create`` frame, byte for byte (a
text-only turn is what it was before tools), and what a connection holds after a response
(``chain_after``): text, steers and calls."""

from __future__ import annotations

import json
from typing import Any

from spark_cli.protocol.channel import Message, ToolCall, ToolOutput, ToolSpec, TurnRequest
from spark_cli.transport.responses_fold import ResponsesFold, chain_after
from spark_cli.transport.ws_wire import Chain, create_payload

TEXT = TurnRequest(
    "m", (Message("user", "hi"), Message("assistant", "yo"), Message("user", "more")),
    instructions="be brief", max_output_tokens=9)


def test_a_text_only_frame_is_byte_for_byte_what_it_was() -> None:
    assert create_payload(TEXT, None) == (
        '{"type": "response.create", "model": "m", "input": [{"type": "message", "role": "user", '
        '"content": "hi"}, {"type": "message", "role": "assistant", "content": "yo"}, {"type": '
        '"message", "role": "user", "content": "more"}], "instructions": "be brief", '
        '"max_output_tokens": 9, "store": false}')
    assert create_payload(TEXT, Chain("resp_1", TEXT.messages[:2])) == (
        '{"type": "response.create", "model": "m", "previous_response_id": "resp_1", "input": '
        '[{"type": "message", "role": "user", "content": "more"}], "instructions": "be brief", '
        '"max_output_tokens": 9, "store": false}')


def test_a_chained_follow_up_carries_only_the_outputs_and_the_tools() -> None:
    call = ToolCall("call_1", "search", '{"pattern": "x"}', "fc_1")
    held = (Message("user", "hi"), Message("assistant", "Let me look."), call)
    spec = ToolSpec("search", "Search.", {"type": "object", "properties": {}})
    request = TurnRequest("m", (*held, ToolOutput("call_1", "2 hits")), tools=(spec,))
    frame = json.loads(create_payload(request, Chain("resp_1", held)))
    assert frame == {
        "type": "response.create", "model": "m", "previous_response_id": "resp_1",
        "input": [{"type": "function_call_output", "call_id": "call_1", "output": "2 hits"}],
        "tools": [{"type": "function", "name": "search", "description": "Search.",
                   "parameters": {"type": "object", "properties": {}}, "strict": False}],
        "store": False}


ASK = TurnRequest("m", (Message("user", "hi"),))
CALL = ToolCall("call_1", "search", '{"pattern": "x"}', "fc_1")


def folded(*events: dict[str, Any]) -> ResponsesFold:
    fold = ResponsesFold()
    for event in events:
        fold.feed(event)
        fold.more = ()
    return fold


CREATED = {"type": "response.created", "response": {"id": "resp_1"}}
COMPLETED = {"type": "response.completed", "response": {"id": "resp_1"}}
ITEM = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "search"}
ADDED = {"type": "response.output_item.added", "output_index": 1,
         "item": {**ITEM, "arguments": ""}}
DONE = {"type": "response.output_item.done", "output_index": 1,
        "item": {**ITEM, "arguments": '{"pattern": "x"}', "status": "completed"}}


def text(piece: str) -> dict[str, Any]:
    return {"type": "response.output_text.delta", "delta": piece}


def test_a_text_answer_is_covered_as_one_assistant_message_as_before() -> None:
    fold = folded(CREATED, text("Hel"), text("lo"), COMPLETED)
    assert chain_after(ASK, fold, []) == Chain(
        "resp_1", (Message("user", "hi"), Message("assistant", "Hello")))
    empty = folded(CREATED, COMPLETED)
    assert chain_after(ASK, empty, []) == Chain(
        "resp_1", (Message("user", "hi"), Message("assistant", "")))


def test_a_preamble_and_calls_are_covered_in_the_callers_order() -> None:
    fold = folded(CREATED, text("Let me look."), ADDED, DONE, COMPLETED)
    assert chain_after(ASK, fold, []) == Chain(
        "resp_1", (Message("user", "hi"), Message("assistant", "Let me look."), CALL))
    bare = folded(CREATED, ADDED, DONE, COMPLETED)
    assert chain_after(ASK, bare, []) == Chain("resp_1", (Message("user", "hi"), CALL))


def test_a_call_never_completed_leaves_nothing_to_continue() -> None:
    cut = {"type": "response.incomplete", "response": {
        "id": "resp_1", "incomplete_details": {"reason": "max_output_tokens"}}}
    assert chain_after(ASK, folded(CREATED, ADDED, cut), []) is None


def test_calls_in_a_steered_turn_leave_nothing_to_continue() -> None:
    steered = {"type": "response.incomplete", "response": {
        "id": "resp_1", "incomplete_details": {"reason": "steered"}}}
    successor = {"type": "response.created", "response": {"id": "resp_2"}}
    end = {"type": "response.completed", "response": {"id": "resp_2"}}
    fold = folded(CREATED, {"type": "response.steer.accepted"}, ADDED, DONE, steered,
                  successor, text("ok"), end)
    assert fold.finished is not None and fold.earlier_texts == [""]
    assert chain_after(ASK, fold, ["look elsewhere"]) is None
