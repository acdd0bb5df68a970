"""hud_text: the status line from plain state (pure)."""

from __future__ import annotations

from spark_cli.tui.hud import HudState, duration, hud_text


def test_streaming_line_shows_every_figure() -> None:
    hud = HudState(provider="cerebras", model="gpt-oss", channel="chat_sse", state="streaming",
                   ttft_s=0.042, tokens_per_s=1497.4, frame_ms=3.14, context_tokens=2100,
                   context_window=128000, queue=2)
    assert hud_text(hud, 0.0) == ("cerebras · gpt-oss │ HTTP SSE (chat) │ streaming │ TTFT 42 ms"
                                  " │ 1,497 tok/s │ frame 3.1 ms │ ctx 2.1k/128.0k (2%) │ "
                                  "2 queued")


def test_a_retry_counts_down_then_the_state_returns() -> None:
    hud = HudState(provider="p", model="m", channel="responses_ws", state="waiting",
                   retry_at=10.0)
    assert "retry in 2.5 s" in hud_text(hud, 7.5)
    assert "retry in" not in hud_text(hud, 10.5) and "waiting" in hud_text(hud, 10.5)


def test_capacity_queue_position_and_a_paused_queue() -> None:
    hud = HudState(provider="p", model="m", channel="mock", state="waiting", queued_at=3,
                   queue=1, paused=True)
    text = hud_text(hud, 0.0)
    assert "queued #3" in text and "1 queued (paused: Enter resumes)" in text


def test_a_long_prefill_shows_a_live_timer_and_the_servers_window() -> None:
    hud = HudState(provider="openai-compatible", model="smol", channel="chat_sse",
                   state="waiting", prefill_s=12.3, context_tokens=5800, context_window=8192)
    text = hud_text(hud, 0.0)
    assert "prefill 12 s, 5.8k tokens" in text and "waiting" not in text
    assert "ctx 5.8k/8.2k (71%)" in text
    hud.state, hud.prefill_s = "streaming", None
    assert "prefill" not in hud_text(hud, 0.0)


def test_tool_calls_and_sparks_time_are_counted() -> None:
    hud = HudState(provider="p", model="m", channel="mock", state="⚙ search TAX_RATE",
                   tool_calls=3, tool_ms=1.26)
    text = hud_text(hud, 0.0)
    assert "⚙ search TAX_RATE" in text and "3 tool calls 1.3 ms" in text
    assert "tool call" not in hud_text(HudState(provider="p", model="m"), 0.0)


def test_a_narrow_terminal_drops_the_frame_time_then_shortens_the_names() -> None:
    hud = HudState(provider="openai-compatible", model="qwen2.5-coder-32b-instruct",
                   channel="chat_sse", state="streaming", ttft_s=0.042, tokens_per_s=1497.4,
                   frame_ms=3.1, context_tokens=2100, context_window=128000,
                   deep="deep #1 running 12s 1,200 tok · #2 running 3s 80 tok")
    full = hud_text(hud, 0.0)
    for width in (130, 100, 90):
        text = hud_text(hud, 0.0, width)
        assert len(text) <= width
        for figure in ("streaming", "TTFT 42 ms", "1,497 tok/s", "ctx 2.1k/128.0k (2%)"):
            assert figure in text, (width, text)
        assert "frame" not in text
    assert hud_text(hud, 0.0, len(full)) == full
    assert "…" in hud_text(hud, 0.0, 100)
    without_deep = HudState(provider="mock", model="gpt-5.3-codex-spark", channel="mock",
                            state="ready", ttft_s=0.04, tokens_per_s=1231, frame_ms=0.1,
                            tool_calls=1, tool_ms=3.9, context_tokens=2100,
                            context_window=128000)
    text = hud_text(without_deep, 0.0, 120)  # 132 with the frame time
    assert text.startswith("mock · gpt-5.3-codex-spark │ WebSocket │ ready"), text


def test_a_long_tool_time_reads_in_seconds() -> None:
    # a command that ran for seconds (and waited for the user's yes) is not "14786.3 ms"
    assert duration(3.24) == "3.2 ms"
    assert duration(14_786.3) == "14.8 s"


def test_the_sessions_tokens_and_cost_show_and_give_way_on_a_narrow_line() -> None:
    hud = HudState(provider="openai", model="gpt-5", channel="responses_ws", state="ready",
                   spent="12.3k tok · $0.0123", frame_ms=2.0)
    assert "│ 12.3k tok · $0.0123 │" in hud_text(hud, 0.0)
    wide = hud_text(hud, 0.0, 60)
    assert "$0.0123" in wide and "frame" not in wide  # the frame time goes first
    narrow = hud_text(hud, 0.0, 40)
    assert "$0.0123" not in narrow and "ready" in narrow
