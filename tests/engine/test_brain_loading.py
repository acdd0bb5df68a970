"""Brains load when first asked for, off the event loop, within the time to first token;
one that cannot be made is a 500 ``no brain`` and the connection goes on."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from typing import Any

import httpx
import pytest
from engine_client import BOTH_SERVERS, EchoBrain, send, text_of, until, ws_connect
from waiting import wait_until

LOAD_S = 0.5
TTFT_MS = 1000.0


class SlowToLoad:
    """A factory like the registry's: ``loaded`` says no until the brain is made, which
    blocks for :data:`LOAD_S` (an import); records the threads it was made in."""

    def __init__(self) -> None:
        self.made_in: list[str] = []
        self._brain: EchoBrain | None = None

    def loaded(self, model: str) -> bool:
        return self._brain is not None

    def __call__(self, model: str) -> EchoBrain:
        if self._brain is None:
            self.made_in.append(threading.current_thread().name)
            time.sleep(LOAD_S)  # a brain slow to load (an import)
            self._brain = EchoBrain()
        return self._brain


@BOTH_SERVERS
async def test_a_brain_to_load_is_made_off_the_loop_within_the_ttft(engine_factory: Any) -> None:
    brains = SlowToLoad()
    engine = await engine_factory(brains=brains, tps=50000, ttft_ms=TTFT_MS)
    async with ws_connect(engine) as ws:
        sent = time.perf_counter()
        await send(ws, type="response.create", model="m", input="hello")
        events = await until(ws, "response.output_text.delta")
        first = time.perf_counter() - sent
        assert text_of(events + await until(ws)) == "hello"
    assert [name.startswith("spark-brain") for name in brains.made_in] == [True]
    assert first >= TTFT_MS / 1000
    assert first < (TTFT_MS / 1000 + LOAD_S) - 0.1  # the load did not come on top of it


@BOTH_SERVERS
async def test_a_cancel_while_the_brain_loads_stops_the_response(engine_factory: Any) -> None:
    brains = SlowToLoad()
    engine = await engine_factory(brains=brains, tps=50000, ttft_ms=0)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="forever")
        await wait_until(lambda: brains.made_in, 5)  # the brain is loading
        assert brains.made_in and not brains.loaded("m")
        await send(ws, type="response.cancel")
        events = await until(ws)
    end = events[-1]
    assert (end["type"], end["response"]["status"]) == ("response.incomplete",
                                                        "incomplete")
    assert end["response"]["incomplete_details"]["reason"] == "cancelled"
    assert text_of(events) == ""


@BOTH_SERVERS
async def test_a_brain_that_cannot_be_made_is_a_500_and_the_connection_goes_on(
    engine_factory: Any,
) -> None:
    def brains(model: str) -> EchoBrain:
        if model == "gone":
            raise ValueError("script file not found: gone.toml")
        return EchoBrain()

    engine = await engine_factory(brains=brains, tps=50000, ttft_ms=0)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="gone", input="x", stream_id="a")
        error = (await until(ws))[-1]
        assert (error["type"], error["status"], error["stream_id"]) == ("error", 500, "a")
        assert error["error"]["message"] == "no brain: script file not found: gone.toml"
        await send(ws, type="response.create", model="m", input="still here")
        assert text_of(await until(ws)) == "still here"


def test_an_engine_imports_only_the_brains_it_uses() -> None:
    code = """
import asyncio, json, sys
from websockets.asyncio.client import connect
from spark_cli.engine.core.config import EngineConfig
from spark_cli.engine.serving.server import run_engine

def brains():
    return sorted(m.rsplit(".", 1)[-1] for m in sys.modules
                  if m.startswith("spark_cli.engine.brains.")
                  and m.rsplit(".", 1)[-1] in ("rules_brain", "deep_brain", "script", "lorem"))

async def main():
    async with run_engine(EngineConfig(port=0, ttft_ms=0, brain="rules"), http=False) as e:
        print(brains())
        async with connect(e.ws_url, proxy=None) as ws:
            await ws.send(json.dumps({"type": "response.create", "model": "gpt-x",
                                      "input": "rename a to b"}))
            while json.loads(await ws.recv())["type"] != "response.completed":
                pass
        print(brains())

asyncio.run(main())
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.splitlines() == ["[]", "['rules_brain']"], done.stderr


@pytest.mark.parametrize("path", ["/v1/responses", "/v1/chat/completions"])
async def test_over_http_a_brain_that_cannot_be_made_is_a_500(engine_factory: Any,
                                                               path: str) -> None:
    def brains(model: str) -> EchoBrain:
        raise ValueError("script file not found: gone.toml")

    engine = await engine_factory(brains=brains, tps=50000, ttft_ms=0)
    body: dict[str, Any] = {"model": "m", "input": "x"} if path == "/v1/responses" else {
        "model": "m", "messages": [{"role": "user", "content": "x"}]}
    async with httpx.AsyncClient(base_url=engine.url, trust_env=False, timeout=10,
                                 headers={"Authorization": "Bearer test-token"}) as http:
        response = await http.post(path, json=body)
    assert response.status_code == 500
    assert response.json()["error"]["message"] == "no brain: script file not found: gone.toml"


async def test_warm_makes_the_default_brain_in_the_pool_before_any_request() -> None:
    from spark_cli.engine.core.config import EngineConfig
    from spark_cli.engine.core.state import EngineState

    brains = SlowToLoad()
    state = EngineState(EngineConfig(), brains)
    try:
        state.warm()
        state.brain_pool.shutdown(wait=True)  # the pool has done what it was given
    finally:
        state.close()
    assert [name.startswith("spark-brain") for name in brains.made_in] == [True]
    assert brains.loaded("")

    asked: list[str] = []

    def plain(model: str) -> EchoBrain:  # cannot say what is loaded: nothing is made ahead
        asked.append(model)
        return EchoBrain()

    state = EngineState(EngineConfig(), plain)
    try:
        state.warm()
        state.brain_pool.shutdown(wait=True)
    finally:
        state.close()
    assert asked == []
