"""The deep model keeps its own pace: ``spark-deep`` streams at ``deep_ttft_ms`` /
``deep_tps`` while ``spark-rules`` keeps ``ttft_ms`` / ``tps``, in the same run.

Both answer the same task at the same time on one connection (two lanes), so
they compare as ratios; the only absolute checks are lower bounds the
schedule guarantees (token i is due at t0 + TTFT + i / tps)."""

from __future__ import annotations

import json
import time
from typing import Any

from engine_client import send, ws_connect

from spark_cli.protocol.files import FileBlock, render_file_blocks

FILES = {f"m{i}.py": "".join(f"def f{i}_{j}(a, b):\n    return a + b\n\n\n" for j in range(6))
         for i in range(3)}
TASK = "explain the code\n\n" + render_file_blocks([FileBlock(p, c) for p, c in FILES.items()])
FAST = {"tps": 2000, "ttft_ms": 20}
DEEP = {"deep_tps": 250, "deep_ttft_ms": 300}


async def _race(engine: Any) -> dict[str, tuple[float, float, int]]:
    """Per model: seconds from send to the first and to the last delta, and the tokens."""
    firsts: dict[str, float] = {}
    lasts: dict[str, float] = {}
    tokens: dict[str, int] = {}
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="spark-rules", input="warm-up")
        while json.loads(await ws.recv())["type"] != "response.completed":
            pass
        sent = time.perf_counter()
        for model in ("spark-deep", "spark-rules"):
            await send(ws, type="response.create", model=model, input=TASK, stream_id=model)
        while len(tokens) < 2:
            event = json.loads(await ws.recv())
            lane, now = event.get("stream_id"), time.perf_counter() - sent
            if event["type"] == "response.output_text.delta":
                firsts.setdefault(lane, now)
                lasts[lane] = now
            elif event["type"] == "response.completed":
                tokens[lane] = event["response"]["usage"]["output_tokens"]
            elif event["type"] in ("response.failed", "response.incomplete", "error"):
                raise AssertionError(event)
    return {m: (firsts[m], lasts[m], tokens[m]) for m in tokens}


async def test_spark_deep_is_paced_as_the_deep_model(engine_factory: Any) -> None:
    engine = await engine_factory(**FAST, **DEEP, frame_ms=10)
    times = await _race(engine)
    deep_first, deep_last, deep_tokens = times["spark-deep"]
    fast_first, fast_last, fast_tokens = times["spark-rules"]
    assert deep_tokens > 100 and fast_tokens > 100
    # the schedule's lower bounds, for the deep model's own figures
    assert deep_first >= 0.300
    assert deep_last >= 0.300 + (deep_tokens - 1) / 250
    # ratios within one run: TTFT nominally 15x, rate nominally 8x
    assert deep_first > 4 * fast_first
    deep_rate = (deep_tokens - 1) / (deep_last - deep_first)
    fast_rate = (fast_tokens - 1) / max(fast_last - fast_first, 1e-3)
    assert fast_rate > 3 * deep_rate
    assert deep_rate <= 250 * 1.05  # never faster than its schedule


async def test_a_fast_model_name_never_gets_the_deep_pace(engine_factory: Any) -> None:
    # slow deep settings would make the rules answer take > 60 s if they leaked
    engine = await engine_factory(**FAST, deep_tps=1, deep_ttft_ms=60_000)
    async with ws_connect(engine) as ws:
        started = time.perf_counter()
        await send(ws, type="response.create", model="gpt-5.3-codex-spark", input=TASK)
        while json.loads(await ws.recv())["type"] != "response.completed":
            pass
        assert time.perf_counter() - started < 30


async def test_a_deep_default_brain_paces_any_model_name_as_deep(engine_factory: Any) -> None:
    engine = await engine_factory(brain="deep", tps=5000, ttft_ms=0, deep_tps=5000,
                                  deep_ttft_ms=400)
    async with ws_connect(engine) as ws:
        started = time.perf_counter()
        await send(ws, type="response.create", model="gpt-5.3-codex", input=TASK)
        text = ""
        while len(text) < len("I read"):  # a frame may hold a single token: gather a few
            event = json.loads(await ws.recv())
            if event["type"] == "response.output_text.delta":
                assert time.perf_counter() - started >= 0.400
                text += event["delta"]
        assert text.startswith("I read")
