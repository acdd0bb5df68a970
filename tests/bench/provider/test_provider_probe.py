"""`spark bench provider --provider NAME`: a provider of yours, measured on each of its
channels (against the engine on loopback)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from spark_cli.bench.processes import start_engine
from spark_cli.bench.provider.provider import channels_for, measure
from spark_cli.cli.main import app
from spark_cli.session.config.settings import load_settings


def _provider(tmp_path: Path, name: str, env: dict[str, str]) -> Any:
    return load_settings(tmp_path, {"provider": name},
                         {"SPARK_CONFIG_DIR": str(tmp_path / "none"), **env}).provider


async def test_a_websocket_provider_is_measured_beside_its_http_twin(tmp_path: Path,
                                                                      engine: Any) -> None:
    provider = _provider(tmp_path, "openai", {"OPENAI_API_KEY": engine.token,
                                              "SPARK_BASE_URL": engine.url + "/v1"})
    assert channels_for(provider) == ["responses_ws", "responses_sse"]
    for kind in channels_for(provider):
        answer = await measure(provider, kind, "say something", 40)
        assert answer.answer_tokens > 0 and answer.connect_send_s > 0
        assert answer.ttft_s >= 0 and answer.total_s >= answer.connect_send_s


def test_a_named_provider_is_measured_on_each_channel(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    engine = start_engine("bench-token")  # its own process: the runner blocks this one
    env = {**{k: None for k in os.environ if k.startswith("SPARK_")},
           "SPARK_CONFIG_DIR": str(tmp_path / "none"), "OPENAI_API_KEY": engine.token,
           "SPARK_BASE_URL": engine.url + "/v1"}
    try:
        result = CliRunner().invoke(app, ["bench", "provider", "--provider", "openai", "--sizes",
                                          "1k", "--reps", "1", "--tokens", "20"], env=env)
    finally:
        engine.stop()
    assert result.exit_code == 0, result.output
    assert "Responses, WebSocket:" in result.output and "Responses, SSE:" in result.output
    assert "| connect + send | total |" in result.output


def test_a_provider_without_its_key_is_a_clear_error(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    env = {"SPARK_CONFIG_DIR": str(tmp_path), "CEREBRAS_API_KEY": None, "SPARK_API_KEY": None}
    result = CliRunner().invoke(app, ["bench", "provider", "--provider", "cerebras"], env=env)
    assert result.exit_code == 2
    assert "needs an API key: set CEREBRAS_API_KEY" in result.output
