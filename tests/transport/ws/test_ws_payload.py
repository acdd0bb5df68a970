"""The ``response.create`` frame, byte for byte: a text-only turn is what it was before tools."""

from __future__ import annotations

import json

from spark_cli.protocol.channel import Message, ToolCall, ToolOutput, ToolSpec, TurnRequest
from spark_cli.transport.ws.ws_payload import Chain, create_payload

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
