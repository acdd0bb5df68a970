"""`spark bench session`: a small real run through compactions, and its checks failing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from trusting import write_project

from spark_cli.bench.processes import example_repo
from spark_cli.bench.session_bench import run_session, table


async def test_a_small_window_compacts_and_keeps_every_message(tmp_path: Path,
                                                               engine_factory) -> None:
    engine = await engine_factory(tps=50000)
    figures = await run_session(engine, example_repo(tmp_path), 24, window=6000)
    done = figures["compactions"]
    assert done and all(e.tokens_after < e.tokens_before for e in done)
    text = table({**figures, "tps": 50000})
    assert f"24 turns at 50,000 tok/s, window 6,000: {len(done)} compactions" in text
    assert f"| 1 | {done[0].turns} | {done[0].tokens_before:,} | " in text


async def test_a_turn_dropped_unsummarised_fails_the_bench(tmp_path: Path,
                                                           engine_factory: Any) -> None:
    engine = await engine_factory(tps=50000)
    root = example_repo(tmp_path)
    write_project(root, "auto_compact = false\n")
    with pytest.raises(RuntimeError, match="dropped turns unsummarised"):
        await run_session(engine, root, 24, window=6000)
