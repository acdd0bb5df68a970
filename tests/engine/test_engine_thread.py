"""The engine on its own thread: the same contract as run_engine, and a caller whose loop is
busy does not hold it back."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from engine_client import send, text_of, until, ws_connect

from spark_cli.engine.core.config import EngineConfig
from spark_cli.engine.serving.engine_thread import THREAD_NAME, run_engine_in_thread


def _engine_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == THREAD_NAME]


class StampBrain:
    """Echoes the prompt; notes on which thread it was asked, and sets ``called``."""

    name = "stamp"
    inline = True

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.called = threading.Event()

    def answer(self, request: Any) -> Iterator[str]:
        self.asked.append(threading.current_thread().name)
        self.called.set()
        yield request.prompt


@pytest.mark.parametrize("http", [False, True], ids=["websockets", "uvicorn"])
async def test_it_answers_on_its_own_thread_and_stops_with_the_block(http: bool) -> None:
    brain = StampBrain()
    config = EngineConfig(port=0, token="test-token", ttft_ms=0, tps=50000)
    async with run_engine_in_thread(config, http=http, brains=lambda model: brain) as engine:
        assert len(_engine_threads()) == 1
        async with ws_connect(engine) as ws:
            await send(ws, type="response.create", model="m", input="hello")
            assert text_of(await until(ws)) == "hello"
        assert engine.ws_url.endswith("/v1/responses") and engine.token == "test-token"
    assert brain.asked == [THREAD_NAME]
    assert _engine_threads() == []


async def test_a_busy_caller_loop_does_not_hold_the_engine_back() -> None:
    brain = StampBrain()
    config = EngineConfig(port=0, token="test-token", ttft_ms=0, tps=50000)
    async with (run_engine_in_thread(config, brains=lambda model: brain) as engine,
                ws_connect(engine) as ws):
        await send(ws, type="response.create", model="m", input="warm-up")
        await until(ws)
        brain.called.clear()
        await send(ws, type="response.create", model="m", input="now")
        # the caller's loop is blocked until the brain is asked: an engine on it never is
        assert brain.called.wait(20), "the engine waited for the caller's loop"
        assert text_of(await until(ws)) == "now"


async def test_a_bad_brain_spec_is_a_valueerror_in_the_caller() -> None:
    with pytest.raises(ValueError, match="unknown brain 'poet'"):
        async with run_engine_in_thread(EngineConfig(port=0, brain="poet")):
            pass
    assert _engine_threads() == []


async def test_a_port_in_use_is_an_oserror_in_the_caller() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(OSError):
            async with run_engine_in_thread(EngineConfig(port=taken.getsockname()[1])):
                pass
    assert _engine_threads() == []


async def test_an_error_while_stopping_reaches_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    from spark_cli.engine.core.state import EngineState

    def broken_close(self: EngineState) -> None:
        raise RuntimeError("the brain pool would not stop")

    monkeypatch.setattr(EngineState, "close", broken_close)
    with pytest.raises(RuntimeError, match="would not stop"):
        async with run_engine_in_thread(EngineConfig(port=0)):
            pass
    assert _engine_threads() == []
