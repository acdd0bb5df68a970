"""Bad input never crashes the engine or affects other connections."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from engine_client import BOTH_SERVERS, echo_brains, recv, send, text_of, until, ws_connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

pytestmark = BOTH_SERVERS

FAST = {"brains": echo_brains, "tps": 50000, "ttft_ms": 0}


async def _still_answers(ws: Any) -> None:
    await send(ws, type="response.create", model="m", input="alive")
    assert text_of(await until(ws)) == "alive"


@pytest.mark.parametrize(
    ("frame", "code", "param"),
    [
        ("{not json", "invalid_json", None),
        ("[1, 2]", "invalid_json", None),
        ('{"type": "response.frobnicate"}', "unknown_event_type", "type"),
        ('{"model": "m"}', "missing_required_parameter", "type"),
        ('{"type": "response.create", "input": "x"}', "missing_required_parameter", "model"),
        ('{"type": "response.create", "model": 5, "input": "x"}', "invalid_type", "model"),
        ('{"type": "response.create", "model": "m"}', "missing_required_parameter", "input"),
        ('{"type": "response.create", "model": "m", "input": 3}', "invalid_type", "input"),
        ('{"type": "response.create", "model": "m", "input": [{"role": "robot", '
         '"content": "x"}]}', "invalid_value", "input[0].role"),
        ('{"type": "response.create", "model": "m", "input": [{"role": "user"}]}',
         "missing_required_parameter", "input[0].content"),
        ('{"type": "response.create", "model": "m", "input": [{"role": "user", '
         '"content": [{"type": "input_image"}]}]}', "invalid_value", "input[0].content[0]"),
        ('{"type": "response.create", "model": "m", "input": "x", "max_output_tokens": 0}',
         "invalid_value", "max_output_tokens"),
        ('{"type": "response.create", "model": "m", "input": "x", "max_output_tokens": "9"}',
         "invalid_type", "max_output_tokens"),
        ('{"type": "response.create", "model": "m", "input": "x", "generate": "no"}',
         "invalid_type", "generate"),
        ('{"type": "response.steer"}', "missing_required_parameter", "input"),
        ('{"type": "response.create", "model": "m", "input": [{"type": "additional_tools", '
         '"role": "developer"}]}', "missing_required_parameter", "input[0].tools"),
        ('{"type": "response.create", "model": "m", "input": [{"type": "additional_tools", '
         '"role": "developer", "tools": [{"type": "toolbox"}]}]}', "invalid_value",
         "input[0].tools[0].type"),
        ('{"type": "response.create", "model": "m", "input": "x", "tools": [{"type": '
         '"function", "function": {"name": "f"}}]}', "missing_required_parameter",
         "tools[0].name"),
        ('{"type": "response.steer", "input": [{"type": "additional_tools", "role": '
         '"developer", "tools": []}]}', "invalid_value", "input[0].type"),
    ],
)
async def test_bad_frames_get_specific_errors(
    engine_factory: Any, frame: str, code: str, param: str | None
) -> None:
    engine = await engine_factory(**FAST)
    async with ws_connect(engine) as ws:
        await ws.send(frame)
        error = await recv(ws)
        assert error["type"] == "error"
        assert error["status"] == 400
        assert error["error"]["code"] == code
        assert error["error"]["param"] == param
        assert error["error"]["message"]
        await _still_answers(ws)


async def test_message_items_in_all_accepted_shapes(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    items = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "a"}]},
        {"role": "assistant", "content": "b"},
        {"type": "message", "role": "user", "content": "history"},
    ]
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input=items)
        assert text_of(await until(ws)) == "user:a | assistant:b | user:history"


async def test_binary_frames_are_parsed_too(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    async with ws_connect(engine) as ws:
        await ws.send(b'{"type": "response.create", "model": "m", "input": "bin"}')
        assert text_of(await until(ws)) == "bin"


async def test_oversized_frame_closes_1009_others_unaffected(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST, ws_max_size=4096)
    async with ws_connect(engine) as other, ws_connect(engine, max_size=None) as ws:
        await ws.send("x" * 10000)
        with pytest.raises(ConnectionClosed) as closed:
            await recv(ws)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
        await _still_answers(other)


async def test_bad_auth_is_401_at_the_handshake(engine: Any) -> None:
    for token in (None, "wrong"):
        with pytest.raises(InvalidStatus) as refused:
            async with ws_connect(engine, token=token):
                pass
        assert refused.value.response.status_code == 401
        body = refused.value.response.body.decode()
        assert "invalid_api_key" in body


async def test_unknown_websocket_path_is_404(engine: Any) -> None:
    from websockets.asyncio.client import connect

    with pytest.raises(InvalidStatus) as refused:
        async with connect(engine.url.replace("http", "ws") + "/v1/other", proxy=None,
                           additional_headers={"Authorization": "Bearer test-token"}):
            pass
    assert refused.value.response.status_code == 404


async def test_a_broken_brain_fails_only_its_response(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="boom")
        events = await until(ws)
        assert events[-1]["type"] == "response.failed"
        assert "kaput" in events[-1]["response"]["error"]["message"]
        await _still_answers(ws)
    async with httpx.AsyncClient(trust_env=False) as client:
        assert (await client.get(engine.url + "/healthz")).status_code == 200


async def test_an_engine_bug_is_a_500_and_the_connection_stays(
    engine_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from spark_cli.engine.serving import ws_session

    real = ws_session.Generation
    calls = []

    def broken(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("bug")
        return real(*args, **kwargs)

    monkeypatch.setattr(ws_session, "Generation", broken)
    engine = await engine_factory(**FAST)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="x")
        error = await recv(ws)
        assert error["status"] == 500 and error["error"]["code"] == "server_error"
        await _still_answers(ws)


async def test_a_brain_that_raises_at_once_fails_cleanly(engine_factory: Any) -> None:
    class Broken:
        name = "broken"

        def answer(self, request: Any) -> Any:
            raise ValueError("no answer today")

    engine = await engine_factory(brains=lambda model: Broken(), tps=50000, ttft_ms=0)
    async with ws_connect(engine) as ws:
        for _ in range(2):
            await send(ws, type="response.create", model="m", input="x")
            events = await until(ws)
            assert events[-1]["type"] == "response.failed"
            assert "no answer today" in events[-1]["response"]["error"]["message"]
    assert engine.state.generating == 0
