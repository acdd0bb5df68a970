"""Each provider preset end to end (settings, wiring, channel, Session), the engine standing in.

The engine's HTTP endpoints (Chat Completions, Responses SSE) and its WebSocket
stand in for OpenAI, Cerebras and an OpenAI-compatible server; only the
base URL is pointed at it, everything else comes from the preset.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from spark_cli.session.config.settings import load_settings
from spark_cli.session.conversation import Session
from spark_cli.session.events import TurnCompleted

PY = "def total_price(items):\n    return sum(items)\n"


@pytest.mark.parametrize(
    ("provider", "key_env", "extra", "kind"),
    [
        ("openai", "OPENAI_API_KEY", {}, "responses_ws"),
        ("cerebras", "CEREBRAS_API_KEY", {"model": "spark-rules"}, "chat_sse"),
        ("openai-compatible", "SPARK_API_KEY", {"model": "spark-rules"}, "chat_sse"),
        ("mock", "SPARK_API_KEY", {}, "mock"),
    ],
)
async def test_preset_edits_a_file_through_the_engine(tmp_path: Path, engine, provider, key_env,
                                                      extra, kind):
    from spark_cli.cli.wiring import open_provider_channel

    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text(PY)
    env = {"SPARK_CONFIG_DIR": str(tmp_path / "cfg"), key_env: engine.token}
    flags = {"provider": provider, "base_url": engine.url + "/v1", **extra}
    settings = load_settings(root, flags, env)
    assert settings.provider.kind == kind
    events = []
    async with asyncio.timeout(30):
        async with open_provider_channel(settings.provider, idle_timeout=20) as channel:
            session = Session(channel, root, settings)
            async for event in session.run_turn("rename total_price to grand_total",
                                                ["app.py"]):
                events.append(event)
    final = events[-1]
    assert isinstance(final, TurnCompleted), final
    assert final.applied >= 1 and final.refused == 0
    assert "def grand_total(items):" in (root / "app.py").read_text()
