"""`spark bench stream`: the per-token engine, the floor clients and the table (structure
only: no timed assertions)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from spark_cli.bench.stream.floor import read_chat, read_ws
from spark_cli.bench.stream.stream import WIRES, measure, table


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
    figures = measure(reps=1, tokens=60, rates=[20000.0], workdir=tmp_path,
                      modes=("socket", "floor", "pipe", "tty", "json"))
    assert set(figures) == {f"{wire} @ 20000" for wire in WIRES}
    for modes in figures.values():
        assert set(modes) == {"socket", "floor", "pipe", "tty", "json"}
        assert modes["floor"]["messages"] == 60 and modes["socket"]["messages"] == 60
        assert all(f["cpu_raw_s"] > 0 for f in modes.values())
        assert "x_floor" in modes["pipe"] and "x_socket" in modes["pipe"]
    rendered = table(figures)
    assert "| Responses, WebSocket @ 20000 | floor: asyncio" in rendered
    assert "| Chat Completions, SSE @ 20000 | `spark edit --json` |" in rendered
    assert "×" in rendered


def test_the_tui_and_a_baseline_tree_run_paired(tmp_path: Path):
    import spark_cli

    tree = Path(spark_cli.__file__).resolve().parent.parent
    figures = measure(reps=1, tokens=40, rates=[20000.0], workdir=tmp_path,
                      modes=("floor", "tui"), wires=("chat_sse",), baseline=tree)
    row = figures["chat_sse @ 20000"]
    assert set(row) == {"floor", "tui", "tui@base"}
    assert row["tui"]["first_s"] > 0 and "x_base" in row["tui"]
    assert "request sent → first text on screen" in table(figures)
