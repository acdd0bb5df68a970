"""Hostile input that once got through (issue 12): nesting, big bodies, content types, methods.

Deeply nested JSON is a 400 ``invalid_json`` (WebSocket: an ``error`` event on a
connection that stays usable; HTTP: OpenAI's error body, never a 500); a body
over the limit is refused from its Content-Length before it is read, and a
chunked one as soon as it passes the limit; a JSON body sent as ``text/plain``
is 415; a method a route does not serve is 405.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from engine_client import BOTH_SERVERS, TOKEN, echo_brains, send, text_of, until, ws_connect

FAST = {"brains": echo_brains, "tps": 50000, "ttft_ms": 0}
AUTH = {"Authorization": f"Bearer {TOKEN}"}
NESTED = {
    "list-5000": "[" * 5000,
    "closed-list-5000": "[" * 5000 + "]" * 5000,
    "object-100000": '{"a":' * 100_000 + "1" + "}" * 100_000,
    "create-with-deep-input": '{"type": "response.create", "model": "m", "input": '
                              + "[" * 5000 + "]" * 5000 + "}",
}
HTTP_ROUTES = ("/v1/responses", "/v1/chat/completions")


def client(engine: Any, **kwargs: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=engine.url, trust_env=False, timeout=10, **kwargs)


@BOTH_SERVERS
@pytest.mark.parametrize("frame", NESTED.values(), ids=NESTED.keys())
async def test_ws_deeply_nested_json_is_invalid_json_and_the_socket_stays(
    engine_factory: Any, frame: str
) -> None:
    engine = await engine_factory(**FAST)
    async with ws_connect(engine) as ws:
        await ws.send(frame)
        error = (await until(ws))[-1]
        assert error["type"] == "error"
        assert (error["status"], error["error"]["code"]) == (400, "invalid_json")
        assert "nested" in error["error"]["message"]
        await send(ws, type="response.create", model="m", input="alive")
        assert text_of(await until(ws)) == "alive"


@pytest.mark.parametrize("path", HTTP_ROUTES)
@pytest.mark.parametrize("body", NESTED.values(), ids=NESTED.keys())
async def test_http_deeply_nested_json_is_a_400_in_openai_shape(
    engine_factory: Any, path: str, body: str
) -> None:
    engine = await engine_factory(**FAST)
    async with client(engine, headers=AUTH) as http:
        response = await http.post(path, content=body)
        assert response.status_code == 400
        error = response.json()["error"]
        assert (error["type"], error["code"]) == ("invalid_request_error", "invalid_json")
        healthy = await http.post("/v1/responses", json={"model": "m", "input": "alive"})
    assert healthy.status_code == 200


async def _raw_exchange(engine: Any, head: bytes, body_parts: list[bytes]) -> bytes:
    """Send ``head`` and ``body_parts`` on a raw socket; the bytes answered within 5 s,
    without ever finishing the body (the server must answer before it)."""
    host, port = engine.url.removeprefix("http://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(head)
        for part in body_parts:
            writer.write(part)
        await writer.drain()
        async with asyncio.timeout(5):
            answer = await reader.readuntil(b"\r\n\r\n")
            length = int(answer.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            return answer + await reader.readexactly(length)
    finally:
        writer.close()


@pytest.mark.parametrize("path", HTTP_ROUTES)
async def test_a_body_over_the_limit_is_refused_by_content_length_before_it_is_read(
    engine_factory: Any, path: str
) -> None:
    engine = await engine_factory(**FAST)
    head = (f"POST {path} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {TOKEN}\r\n"
            f"content-type: application/json\r\ncontent-length: {50 * 1024 * 1024}\r\n\r\n")
    answer = await _raw_exchange(engine, head.encode(), [b'{"model": "m"'])
    assert answer.startswith(b"HTTP/1.1 413")
    error = json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"]
    assert error["code"] == "request_too_large"


async def test_a_chunked_body_is_refused_once_it_passes_the_limit(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST, http_max_body=1000)
    head = (b"POST /v1/responses HTTP/1.1\r\nhost: x\r\nauthorization: Bearer " + TOKEN.encode()
            + b"\r\ntransfer-encoding: chunked\r\n\r\n")
    chunk = b"x" * 600
    part = b"%x\r\n" % len(chunk) + chunk + b"\r\n"
    answer = await _raw_exchange(engine, head, [part, part])  # no final 0-chunk: never ends
    assert answer.startswith(b"HTTP/1.1 413")


@pytest.mark.parametrize("path", HTTP_ROUTES)
@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x"])
async def test_json_sent_as_another_content_type_is_415(
    engine_factory: Any, path: str, content_type: str
) -> None:
    engine = await engine_factory(**FAST)
    body = json.dumps({"model": "m", "input": "x", "messages": [{"role": "user",
                                                                  "content": "x"}]})
    async with client(engine, headers=AUTH) as http:
        response = await http.post(path, content=body, headers={"content-type": content_type})
    assert response.status_code == 415
    error = response.json()["error"]
    assert (error["type"], error["code"]) == ("invalid_request_error", "unsupported_media_type")
    assert content_type.split(";")[0] in error["message"]


@pytest.mark.parametrize("content_type", [None, "application/json",
                                          "application/json; charset=utf-8",
                                          "Application/JSON"])
async def test_json_content_types_and_none_are_accepted(
    engine_factory: Any, content_type: str | None
) -> None:
    engine = await engine_factory(**FAST)
    headers = {} if content_type is None else {"content-type": content_type}
    async with client(engine, headers=AUTH) as http:
        response = await http.post("/v1/responses", headers=headers,
                                   content=json.dumps({"model": "m", "input": "ok"}))
    assert response.status_code == 200
    assert response.json()["output"][0]["content"][0]["text"] == "ok"


@pytest.mark.parametrize("method", ["DELETE", "POST", "PUT", "PATCH"])
async def test_healthz_serves_only_get_and_head(engine: Any, method: str) -> None:
    async with client(engine) as http:
        response = await http.request(method, "/healthz")
        head = await http.head("/healthz")
    assert response.status_code == 405
    assert response.headers["allow"] == "GET, HEAD"
    assert response.json()["error"]["code"] == "method_not_allowed"
    assert head.status_code == 200
