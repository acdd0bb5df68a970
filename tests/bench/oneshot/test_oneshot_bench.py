"""`spark bench oneshot` smoke test: tiny numbers, real processes; plus its pure helpers."""

from __future__ import annotations

from pathlib import Path

from spark_cli.bench.oneshot.oneshot import TARGETS, run_benchmark, table
from spark_cli.bench.processes import child_env


def _channel(launch: float, net: float) -> dict[str, float]:
    return {"launch_to_request_s": launch, "cpu_net_per_5k_s": net, "cpu_raw_s": 0.3,
            "cpu_short_s": 0.25, "end_to_exit_s": 0.01}


def test_table_compares_every_channel_with_the_targets():
    figures = {"channels": {"responses_ws": _channel(0.09, 0.05),
                            "chat_sse": _channel(0.12, 0.05)},
               "bundled": {"wall_s": 0.28, "wall_min_s": 0.25, "cpu_s": 0.2, "cpu_min_s": 0.19}}
    rendered = table(figures)
    assert "| metric (median) | Responses, WebSocket | Chat Completions, SSE | target | |" \
        in rendered
    assert "| launch → request | 0.090 s | 0.120 s | ≤ 0.1 s | missed |" in rendered
    assert "| CPU per 5,000 tokens, net of start-up | 0.050 s | 0.050 s | ≤ 0.2 s | met |" \
        in rendered
    assert "| wall | 0.280 s | 0.250 s | ≤ 0.3 s | met |" in rendered
    assert set(TARGETS) >= {"launch_to_request_s", "cpu_net_per_5k_s", "end_to_exit_s"}


def test_net_cpu_subtracts_the_same_channels_one_token_run():
    from spark_cli.bench.oneshot.child import Repetition
    from spark_cli.bench.oneshot.oneshot import channel_figures

    runs = [Repetition(0.1, 0.5, 0.01, 5001, 0)]
    short = [Repetition(0.1, 0.3, 0.01, 1, 0), Repetition(0.1, 0.4, 0.01, 1, 0)]
    figures = channel_figures(runs, short)
    assert figures["cpu_short_s"] == 0.35
    assert abs(figures["cpu_net_per_5k_s"] - 0.15) < 1e-9


def test_oneshot_runs_every_channel_and_the_bundled_edit_end_to_end(tmp_path: Path):
    figures = run_benchmark(reps=1, tokens=200, tps=20000.0, workdir=tmp_path)
    assert set(figures["channels"]) == {"responses_ws", "chat_sse", "responses_sse"}
    for channel in figures["channels"].values():
        assert channel["exit_codes"] == [5]  # lorem prose cut at the cap: no edit
        assert channel["output_tokens"] == 200
        assert channel["launch_to_request_s"] > 0
        assert channel["cpu_raw_s"] > 0
        assert channel["end_to_exit_s"] > 0
    assert figures["bundled"]["wall_s"] > 0
    assert "side" not in figures  # no codex given: no side-by-side runs
    # the HTTP channels asked the engine for its window once, into the bench's own cache
    assert "lorem" in (tmp_path / "cache" / "windows.json").read_text()


def test_the_children_never_see_the_users_cache_or_keys(monkeypatch):
    monkeypatch.setenv("SPARK_CACHE_DIR", "/home/user/.cache/spark")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-user")
    env = child_env(SPARK_API_KEY="bench")
    assert "SPARK_CACHE_DIR" not in env and "OPENAI_API_KEY" not in env
    assert env["SPARK_API_KEY"] == "bench"
