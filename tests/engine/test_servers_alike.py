"""run_engine's two servers (uvicorn: HTTP + WebSocket; websockets: the WebSocket alone, as
spark edit and the TUI start it) keep one contract and refuse alike; what the WebSocket-only
server says to plain HTTP."""

from __future__ import annotations

import json
import socket
from typing import Any

import httpx
import pytest
from engine_client import echo_brains, send, until, ws_connect
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from spark_cli.engine.core.config import EngineConfig
from spark_cli.engine.serving.server import run_engine

SERVERS = pytest.mark.parametrize("http", [True, False], ids=["uvicorn", "websockets"])


async def _refusal(url: str, token: str | None) -> tuple[int, str, dict[str, Any]]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with pytest.raises(InvalidStatus) as refused:
        async with connect(url, additional_headers=headers, proxy=None, open_timeout=5):
            pass
    response = refused.value.response
    return (response.status_code, response.headers["content-type"],
            json.loads(response.body))


async def test_both_servers_refuse_a_handshake_with_the_same_status_and_body() -> None:
    config = EngineConfig(port=0, token="secret", brain="rules")
    seen: list[list[tuple[int, str, dict[str, Any]]]] = []
    for http in (True, False):
        async with run_engine(config, http=http) as engine:
            other_path = engine.ws_url.replace("/v1/responses", "/v1/other%20path")
            seen.append([await _refusal(engine.ws_url, None),
                         await _refusal(engine.ws_url, "wrong"),
                         await _refusal(other_path, "secret")])
    assert seen[0] == seen[1]
    (missing, wrong, elsewhere) = seen[1]
    assert missing[:2] == wrong[:2] == (401, "application/json")
    assert missing[2]["error"]["code"] == "invalid_api_key"
    assert "missing API key" in missing[2]["error"]["message"]
    assert "incorrect API key" in wrong[2]["error"]["message"]
    assert elsewhere[0] == 404
    assert elsewhere[2]["error"]["message"] == "no WebSocket at '/v1/other path'"


@SERVERS
async def test_a_port_in_use_is_an_oserror(http: bool) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(OSError):
            async with run_engine(EngineConfig(port=port, brain="rules"), http=http):
                pass


@SERVERS
async def test_a_bad_brain_spec_is_a_valueerror_at_start(http: bool) -> None:
    with pytest.raises(ValueError, match="unknown brain 'poet'"):
        async with run_engine(EngineConfig(port=0, brain="poet"), http=http):
            pass


@SERVERS
async def test_connections_open_at_shutdown_are_closed_1012(http: bool) -> None:
    config = EngineConfig(port=0, token="t", tps=50000, ttft_ms=0)
    async with run_engine(config, brains=echo_brains, http=http) as engine:
        ws = await ws_connect(engine, token="t")
        await send(ws, type="response.create", model="m", input="forever")
        await until(ws, "response.output_text.delta")
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await ws.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
    await ws.close()
    assert engine.state is not None and engine.state.generating == 0


async def test_the_websocket_only_server_answers_plain_http_with_healthz_and_404() -> None:
    config = EngineConfig(port=0, token="t", brain="rules")
    async with run_engine(config, http=False) as engine, httpx.AsyncClient(
            base_url=engine.url, trust_env=False, timeout=5) as client:
        health = await client.get("/healthz")
        models = await client.get("/v1/models", headers={"Authorization": "Bearer t"})
        responses = await client.get("/v1/responses", headers={"Authorization": "Bearer t"})
    assert (health.status_code, health.json()) == (200, {"status": "ok"})
    assert models.status_code == responses.status_code == 404
    assert models.headers["content-type"] == "application/json"
    message = models.json()["error"]["message"]
    assert "/v1/models" in message and "`spark engine serve` serves HTTP too" in message


def test_binding_an_ascii_host_needs_no_idna_codec() -> None:
    import subprocess
    import sys

    code = ("import sys\n"
            "from spark_cli.engine.serving.server import bind_socket\n"
            "for host in ('127.0.0.1', 'localhost', '::1', ''):\n"
            "    bind_socket(host, 0).close()\n"
            "print('encodings.idna' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.split() == ["False"]
