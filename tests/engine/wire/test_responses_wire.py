"""The Responses wire codecs: client-event parsing and validation, event builders."""

from __future__ import annotations

import json

import pytest
from openai.types.responses.responses_server_event import ResponsesServerEvent
from pydantic import TypeAdapter

from spark_cli.engine.core.config import MAX_OUTPUT_TOKENS
from spark_cli.engine.wire import responses as wire
from spark_cli.engine.wire.response_events import ResponseEvents, error_event, usage_object
from spark_cli.engine.wire.responses import InputMessage, WireError

EVENTS: TypeAdapter[object] = TypeAdapter(ResponsesServerEvent)


def test_create_with_every_field() -> None:
    event = wire.parse_client_event(json.dumps({
        "type": "response.create", "model": "m", "input": "hi", "instructions": "be brief",
        "previous_response_id": "resp_1", "store": True, "max_output_tokens": 9,
        "stream_id": "s", "generate": True, "tools": [], "unknown": 1,
    }), MAX_OUTPUT_TOKENS)
    assert event == wire.CreateRequest(
        model="m", input=(InputMessage("user", "hi"),), instructions="be brief",
        previous_response_id="resp_1", store=True, max_output_tokens=9, stream_id="s",
    )


def test_input_item_shapes() -> None:
    items = [
        {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "a"}, {"type": "input_text", "text": "b"}]},
        {"role": "assistant", "content": [{"type": "output_text", "text": "c"}]},
        {"role": "system", "content": "d"},
    ]
    assert wire.parse_input(items) == (
        InputMessage("user", "ab"), InputMessage("assistant", "c"), InputMessage("system", "d"),
    )


def test_warm_up_needs_no_input() -> None:
    event = wire.parse_create({"model": "m", "generate": False}, MAX_OUTPUT_TOKENS)
    assert event.generate is False and event.input == ()


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"model": "m", "input": [{"type": "function_call_output"}]}, "input[0].call_id"),
        ({"model": "m", "input": [{"type": "reasoning"}]}, "input[0].type"),
        ({"model": "m", "input": ["x"]}, "input[0]"),
        ({"model": "m", "input": "x", "store": "yes"}, "store"),
        ({"model": "m", "input": "x", "max_output_tokens": True}, "max_output_tokens"),
        ({"model": "m", "input": "x", "stream_id": 3}, "stream_id"),
        ({"model": "", "input": "x"}, "model"),
    ],
)
def test_invalid_create_names_the_param(body: dict[str, object], param: str) -> None:
    with pytest.raises(WireError) as refused:
        wire.parse_create(body, MAX_OUTPUT_TOKENS)
    assert refused.value.status == 400
    assert refused.value.param == param


def test_cancel_and_steer() -> None:
    assert wire.parse_client_event('{"type":"response.cancel","response_id":"r"}',
                                   MAX_OUTPUT_TOKENS) == wire.CancelRequest("r")
    steer = wire.parse_client_event('{"type":"response.steer","input":"go"}', MAX_OUTPUT_TOKENS)
    assert isinstance(steer, wire.SteerRequest)
    assert steer.input == (InputMessage("user", "go"),) and steer.raw_input == "go"


def test_error_event_shape() -> None:
    error = WireError(429, "rate_limit_exceeded", "slow down", kind="rate_limit_error",
                      headers={"retry-after-ms": "5"})
    event = json.loads(error_event(error, 3, "lane"))
    assert event == {
        "type": "error", "status": 429, "code": "rate_limit_exceeded", "message": "slow down",
        "param": None, "sequence_number": 3, "stream_id": "lane",
        "error": {"type": "rate_limit_error", "code": "rate_limit_exceeded",
                  "message": "slow down", "param": None, "headers": {"retry-after-ms": "5"}},
    }
    EVENTS.validate_python(event)


def test_builders_validate_against_the_sdk() -> None:
    events = ResponseEvents("resp_abc", wire.CreateRequest("m", ()), stream_id="s",
                            previous_response_id="resp_0")
    usage = usage_object(3, 2)
    built = [events.created("queued"), events.queued(2), *events.started(), *events.text_opened(),
             events.delta('a "quoted"\n'), events.steer_accepted("steer_1"),
             *events.finished('a "quoted"\n', "incomplete", usage, "steered")]
    numbers = []
    for kind, payload in built:
        obj = json.loads(payload)
        assert obj["type"] == kind and obj["stream_id"] == "s"
        numbers.append(obj["sequence_number"])
        EVENTS.validate_python(obj)
    assert numbers == list(range(len(built)))
    delta = json.loads(built[5][1])
    assert delta["delta"] == 'a "quoted"\n' and delta["item_id"] == "msg_abc"
    assert json.loads(built[-1][1])["response"]["incomplete_details"] == {"reason": "steered"}
    EVENTS.validate_python(json.loads(events.failed("server_error", "x", usage)[1]))
    EVENTS.validate_python(json.loads(events.empty_completion(usage)[1]))
