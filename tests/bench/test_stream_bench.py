"""`spark bench stream`: the per-token engine, the floor clients and the table (structure
only: no timed assertions)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from spark_cli.bench.stream import MODES, WIRES, measure, table
from spark_cli.bench.stream_floor import read_chat, read_ws


async def test_the_per_token_engine_sends_one_token_per_message(engine_factory: Any):
    engine = await engine_factory(brain="lorem", tps=20000.0, ttft_ms=0, per_token=True)
    for reader, url in ((read_ws, engine.ws_url), (read_chat, engine.url + "/v1")):
        messages, chars = await asyncio.to_thread(reader, url, engine.token, 120)
        assert messages == 120 and chars > 120


async def test_frames_coalesce_without_it(engine_factory: Any):
    engine = await engine_factory(brain="lorem", tps=20000.0, ttft_ms=0)
    messages, _ = await asyncio.to_thread(read_ws, engine.ws_url, engine.token, 400)
    assert messages < 400


def test_the_bench_runs_every_wire_and_client(tmp_path: Path):
    figures = measure(reps=1, tokens=60, tps=20000.0, workdir=tmp_path)
    assert set(figures) == set(WIRES)
    for modes in figures.values():
        assert set(modes) == set(MODES)
        assert modes["floor"]["messages"] == 60
        assert all(f["cpu_raw_s"] > 0 for f in modes.values())
    rendered = table({"one token per message": figures})
    assert "| one token per message | Responses, WebSocket | floor client (read + decode) | 60 |" \
        in rendered
    assert "| Chat Completions, SSE | `spark edit --json` |" in rendered and "×" in rendered
