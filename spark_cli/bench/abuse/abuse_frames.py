"""What `spark bench abuse` throws at the engine, as data: bad WebSocket frames, each to be
answered with an ``error`` event (or ``response.steer.failed``) on a connection that stays
usable, and bad HTTP requests, each with OpenAI's JSON error body and its status."""

from __future__ import annotations

import json
from dataclasses import field
from typing import Any

from spark_cli.record import record

DEEP = 5000
"""Nesting depth of the "deeply nested" frames and bodies (past the decoder's guard)."""


def _create(**fields: Any) -> str:
    return json.dumps({"type": "response.create", "model": "spark-rules", "input": "hi",
                       "max_output_tokens": 16, **fields})


def _steer(**fields: Any) -> str:
    return json.dumps({"type": "response.steer", **fields})


NOT_JSON: list[str | bytes] = [
    "", " ", "{", "}", "{not json", "nul", "{'type': 'response.create'}", '{"type": "x",}',
    "\x00", "\ufeff{}", '{"type": "response.create"', b"\xff\xfe\xfd", b"\xc3\x28",
    b"\x00\x01\x02",
]
NOT_AN_OBJECT: list[str | bytes] = [
    "[]", "[1, 2]", "1", "-0.5e3", "true", "null", '"response.create"', "NaN", "Infinity",
    '"\\ud800"', "[" * 999 + "]" * 999,
]
NESTED: list[str | bytes] = [
    "[" * DEEP, "[" * DEEP + "]" * DEEP, '{"a":' * (20 * DEEP) + "1" + "}" * (20 * DEEP),
    '{"type": "response.create", "model": "m", "input": ' + "[" * DEEP + "]" * DEEP + "}",
    '{"type": "response.create", "model": "m", "input": "x", "metadata": '
    + '{"k":' * DEEP + "0" + "}" * DEEP + "}",
]
EVENT_TYPES: list[str | bytes] = [
    "{}", '{"type": null}', '{"type": 5}', '{"type": []}', '{"type": {}}', '{"type": true}',
    '{"type": "response.frobnicate"}', '{"type": "RESPONSE.CREATE"}',
    '{"type": "response.create "}', '{"type": "response.created"}', '{"type": "error"}',
    json.dumps({"type": "x" * 100_000}), '{"type": "\\u0000"}', b'{"type": "response.nope"}',
]
CREATE_FIELDS: list[str | bytes] = [
    json.dumps({"type": "response.create", "input": "hi"}),
    json.dumps({"type": "response.create", "model": "spark-rules"}), _create(model=None),
    _create(model=5), _create(model=""), _create(model=["m"]), _create(model={"id": "m"}),
    _create(input=None), _create(input=3), _create(input={}), _create(input=[1]),
    _create(input=[{"role": "robot", "content": "x"}]), _create(input=[{"role": "user"}]),
    _create(input=[{"role": "user", "content": 5}]),
    _create(input=[{"role": "user", "content": [{"type": "input_image"}]}]),
    _create(input=[{"role": "user", "content": [{"type": "input_text"}]}]),
    _create(input=[{"role": "user", "content": [{"type": "input_text", "text": 5}]}]),
    _create(input=[{"type": "function_call", "role": "user", "content": "x"}]),
    _create(input=["hi"]), _create(max_output_tokens=0), _create(max_output_tokens=-1),
    _create(max_output_tokens="9"), _create(max_output_tokens=True),
    _create(max_output_tokens=1.5), _create(max_output_tokens=10**30),
    '{"type": "response.create", "model": "m", "input": "x", "max_output_tokens": '
    + "9" * 400 + "}",
    '{"type": "response.create", "model": "m", "input": "x", "max_output_tokens": 1e400}',
    _create(previous_response_id="resp_nope"), _create(previous_response_id=5),
    _create(stream_id=5), _create(stream_id=["a"]), _create(store="yes"),
    _create(generate="no"), _create(generate=None, input=None),
    _create(instructions=5), _create(instructions=["x"]), _create(stream="yes"),
]
STEER_AND_CANCEL: list[str | bytes] = [
    _steer(input="go left"), _steer(input="x", previous_response_id="resp_nope"),
    _steer(input=[{"role": "assistant", "content": "x"}]), _steer(),
    _steer(input=5), _steer(input=[]), _steer(input="x", previous_response_id=5),
    json.dumps({"type": "response.cancel", "response_id": "resp_nope"}),
    json.dumps({"type": "response.cancel", "response_id": 5}),
]
WS_FAMILIES: dict[str, list[str | bytes]] = {
    "not JSON": NOT_JSON, "not an object": NOT_AN_OBJECT, "nested": NESTED,
    "event types": EVENT_TYPES, "create fields": CREATE_FIELDS,
    "steer and cancel": STEER_AND_CANCEL,
}


@record
class HttpCase:
    """One bad request and the status the engine must answer it with."""

    name: str
    method: str
    path: str
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    auth: bool = True


def _nested_body(opening: str) -> bytes:
    closing = {"[": "]", '{"a":': "}"}[opening]
    middle = "1" if opening.startswith("{") else ""
    return (opening * DEEP + middle + closing * DEEP).encode()


def http_cases() -> list[HttpCase]:
    json_type = {"content-type": "application/json"}
    chat_ok = {"model": "m", "messages": [{"role": "user", "content": "x"}]}
    cases: list[HttpCase] = []
    for path in ("/v1/responses", "/v1/chat/completions"):
        cases += [
            HttpCase("nested list", "POST", path, 400, _nested_body("["), json_type),
            HttpCase("nested object", "POST", path, 400, _nested_body('{"a":'), json_type),
            HttpCase("not JSON", "POST", path, 400, b"{nope", json_type),
            HttpCase("empty body", "POST", path, 400, b"", json_type),
            HttpCase("a list", "POST", path, 400, b"[]", json_type),
            HttpCase("bad UTF-8", "POST", path, 400, b"\xff\xfe{}", json_type),
            HttpCase("text/plain", "POST", path, 415, json.dumps(chat_ok).encode(),
                     {"content-type": "text/plain"}),
            HttpCase("form", "POST", path, 415, b"model=m",
                     {"content-type": "application/x-www-form-urlencoded"}),
            HttpCase("no token", "POST", path, 401, b"{}", json_type, auth=False),
            HttpCase("wrong method", "PUT", path, 405, b"{}", json_type),
            HttpCase("huge limit", "POST", path, 400,
                     json.dumps({**chat_ok, "input": "x", "max_output_tokens": 10**30,
                                 "max_tokens": 10**30}).encode(), json_type),
            HttpCase("50 MB by Content-Length", "POST", path, 413, b" " * (50 << 20),
                     json_type),
        ]
    cases += [
        HttpCase("no model", "POST", "/v1/responses", 400, b'{"input": "x"}', json_type),
        HttpCase("bad role", "POST", "/v1/chat/completions", 400,
                 b'{"model": "m", "messages": [{"role": "robot", "content": "x"}]}', json_type),
        HttpCase("no messages", "POST", "/v1/chat/completions", 400,
                 b'{"model": "m", "messages": []}', json_type),
        HttpCase("unknown previous", "POST", "/v1/responses", 400,
                 b'{"model": "m", "input": "x", "previous_response_id": "resp_x"}', json_type),
        HttpCase("DELETE /healthz", "DELETE", "/healthz", 405),
        HttpCase("POST /healthz", "POST", "/healthz", 405, b"{}", json_type),
        HttpCase("unknown path", "GET", "/v1/nowhere", 404),
        HttpCase("bad token", "GET", "/v1/models", 401,
                 headers={"authorization": "Bearer nope"}, auth=False),
    ]
    return cases


def ws_reply_in_shape(event: Any) -> bool:
    """An ``error`` event or a ``response.steer.failed`` as docs/engine.md documents them."""
    if not isinstance(event, dict):
        return False
    error = event.get("error")
    if not isinstance(error, dict) or not all(isinstance(error.get(key), str)
                                              for key in ("code", "message", "type")):
        return False
    if event.get("type") == "error":
        return isinstance(event.get("status"), int) and 400 <= event["status"] < 600 and \
            isinstance(event.get("sequence_number"), int)
    return event.get("type") == "response.steer.failed" and isinstance(event.get("steer"), dict)


def http_error_in_shape(body: Any) -> bool:
    """OpenAI's ``{"error": {"type", "code", "message", "param"}}``."""
    error = body.get("error") if isinstance(body, dict) else None
    return isinstance(error, dict) and isinstance(error.get("message"), str) and \
        isinstance(error.get("type"), str) and "code" in error and "param" in error
