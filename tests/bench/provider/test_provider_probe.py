"""`spark bench oneshot --provider NAME` against the engine on loopback (a provider of yours)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from spark_cli.bench.provider.probe import channels_for, probe, probe_command, probe_table
from spark_cli.session.config.settings import load_settings


def _provider(tmp_path: Path, name: str, env: dict[str, str]) -> Any:
    return load_settings(tmp_path, {"provider": name},
                         {"SPARK_CONFIG_DIR": str(tmp_path / "none"), **env}).provider


async def test_a_websocket_provider_is_measured_beside_its_http_twin(tmp_path: Path,
                                                                      engine: Any) -> None:
    provider = _provider(tmp_path, "openai", {"OPENAI_API_KEY": engine.token,
                                              "SPARK_BASE_URL": engine.url + "/v1"})
    assert channels_for(provider) == ["responses_ws", "responses_sse"]
    runs = await probe(provider, reps=1, tokens=40)
    assert set(runs) == {"responses_ws", "responses_sse"}
    for (figures,) in runs.values():
        assert figures.answer_tokens > 0 and figures.connect_send_s > 0
        assert figures.ttft_s >= 0 and figures.total_s >= figures.connect_send_s
    table = probe_table(runs)
    assert "| median | Responses, WebSocket | Responses, SSE |" in table
    assert "| TTFT |" in table and "| tokens/s |" in table


async def test_a_chat_completions_provider_has_one_channel(tmp_path: Path, engine: Any) -> None:
    provider = _provider(tmp_path, "openai-compatible", {
        "SPARK_API_KEY": engine.token, "SPARK_BASE_URL": engine.url + "/v1",
        "SPARK_MODEL": "m"})
    runs = await probe(provider, reps=1, tokens=20)
    assert list(runs) == ["chat_sse"]


def test_a_provider_without_its_key_is_a_clear_error(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SPARK_CONFIG_DIR", str(tmp_path))
    for name in ("CEREBRAS_API_KEY", "SPARK_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    assert probe_command("cerebras", 1, 10) == 2
    assert "needs an API key: set CEREBRAS_API_KEY" in capsys.readouterr().out
