"""Brain work and big inputs never stall other streams: they run off the event loop."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Iterator
from typing import Any

from engine_client import BOTH_SERVERS, recv, send, until, ws_connect

from spark_cli.engine.brains.lorem import LoremBrain

pytestmark = BOTH_SERVERS
UNDER_WAY = 20  # frames of the victim's stream before the heavy requests start


class BurnBrain:
    """Spends ``seconds`` of pure-Python CPU before it answers (a slow plan)."""

    name = "burn"

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def answer(self, request: Any) -> Iterator[str]:
        end = time.perf_counter() + self.seconds
        spins = 0
        while time.perf_counter() < end:
            spins += 1
        yield f"done after {spins} spins\n"


def brains(model: str) -> Any:
    return LoremBrain() if model == "spark-lorem" else BurnBrain(1.5)


async def _victim(engine: Any, started: asyncio.Event) -> list[float]:
    """A lorem stream at 1,000 tok/s for ~2.5 s: the gaps between its frames. ``started``
    is set once :data:`UNDER_WAY` frames have arrived."""
    stamps: list[float] = []
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="spark-lorem", input="hi",
                   max_output_tokens=2500)
        async with asyncio.timeout(20):
            while True:
                event = json.loads(await ws.recv())
                if event["type"] == "response.output_text.delta":
                    stamps.append(time.perf_counter())
                    if len(stamps) == UNDER_WAY:
                        started.set()
                elif event["type"] in ("response.completed", "response.incomplete"):
                    break
    return [b - a for a, b in itertools.pairwise(stamps)]


async def _heavy(engine: Any, started: asyncio.Event) -> list[str]:
    await started.wait()
    ends: list[str] = []
    async with ws_connect(engine, max_size=None) as ws:
        # a slow brain, then a 6 MB input to count
        await send(ws, type="response.create", model="burn", input="plan this")
        ends.append((await until(ws, timeout=20))[-1]["type"])
        await send(ws, type="response.create", model="spark-lorem", input="abcd " * 1_200_000,
                   max_output_tokens=5)
        ends.append((await until(ws, timeout=20))[-1]["type"])
    return ends


async def test_a_heavy_request_does_not_stall_another_stream(engine_factory: Any) -> None:
    engine = await engine_factory(brains=brains, tps=1000, ttft_ms=0)
    started = asyncio.Event()
    gaps, ends = await asyncio.gather(_victim(engine, started), _heavy(engine, started))
    assert ends == ["response.completed", "response.incomplete"]
    # before: the victim froze for the whole 1.5 s plan (and ~0.3 s per 6 MB count)
    assert max(gaps) < 0.5, max(gaps)


async def test_input_tokens_of_a_big_input_are_counted(engine_factory: Any) -> None:
    engine = await engine_factory(brains=brains, tps=100_000, ttft_ms=0)
    text = "def f(x):\n    return x\n" * 20_000  # 480 KB: counted in the brain pool
    async with ws_connect(engine, max_size=None) as ws:
        await send(ws, type="response.create", model="spark-lorem", input=text,
                   max_output_tokens=3)
        done = (await until(ws))[-1]
        await send(ws, type="response.create", model="spark-lorem", input=text, generate=False)
        warm = await recv(ws)
        warm = warm if warm["type"] == "response.completed" else await recv(ws)
    from spark_cli.protocol.tokens import count_tokens

    assert done["response"]["usage"]["input_tokens"] == count_tokens(text)
    assert warm["response"]["usage"]["input_tokens"] == count_tokens(text)


class WhereBrain:
    """Answers with the name of the thread that planned it; cheap below 100 characters."""

    name = "where"
    inline_below = 100

    def answer(self, request: Any) -> Iterator[str]:
        import threading

        yield threading.current_thread().name


async def test_a_small_conversation_is_planned_on_the_loop_a_large_one_in_the_pool(
        engine_factory: Any) -> None:
    import threading

    engine = await engine_factory(brains=lambda model: WhereBrain(), tps=100_000, ttft_ms=0)
    answers = []
    async with ws_connect(engine) as ws:
        for text in ("short", "x" * 500):
            await send(ws, type="response.create", model="where", input=text)
            done = (await until(ws))[-1]
            answers.append(done["response"]["output"][0]["content"][0]["text"])
    assert answers[0] == threading.current_thread().name  # the engine shares this loop
    assert answers[1].startswith("spark-brain"), answers
