"""The window a run uses: configured, known, cached, asked, learned; max_output follows it."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from spark_cli.cli import window_setup
from spark_cli.cli.window_setup import ServerFacts, cached, remember, resolve, store
from spark_cli.protocol.channel import Message, TurnRequest
from spark_cli.session.config.settings import load_settings
from spark_cli.transport.window import probe

BASE = "http://127.0.0.1:9/v1"


def _settings(tmp_path: Path, **flags: object):
    env = {"SPARK_CONFIG_DIR": str(tmp_path / "cfg"), "SPARK_CACHE_DIR": str(tmp_path / "c")}
    return load_settings(tmp_path, {"provider": "openai-compatible", "base_url": BASE,
                                    "model": "smol", **flags}, env), env


def test_a_server_window_is_asked_once_then_cached(tmp_path: Path, monkeypatch) -> None:
    asked: list[str] = []

    def discover(base_url: str, model: str, api_key: str | None) -> probe.Found:
        asked.append(base_url)
        return probe.Found(8192, "llama.cpp /props n_ctx", "llama.cpp")

    monkeypatch.setattr(probe, "discover", discover)
    settings, env = _settings(tmp_path)
    first = resolve(settings, env)
    assert (first.context_window, first.max_output_tokens) == (8192, 2048)
    assert first.sources["context_window"] == "server: llama.cpp /props n_ctx (asked now)"
    assert first.token_scale == window_setup.ESTIMATE_SCALE  # not measured yet: errs high
    again = resolve(settings, env)
    assert again.context_window == 8192
    assert asked == [BASE]  # the second run read the cache


def test_a_configured_window_wins_and_max_output_follows_it(tmp_path: Path,
                                                           monkeypatch) -> None:
    monkeypatch.setattr(probe, "discover", lambda *a: probe.Found(32768, "x", None))
    (tmp_path / ".spark").mkdir()
    (tmp_path / ".spark" / "config.toml").write_text("context_window = 8192\n")
    settings, env = _settings(tmp_path)
    assert (settings.context_window, settings.max_output_tokens) == (8192, 2048)  # no trap
    assert settings.input_budget == 6144
    resolved = resolve(settings, env)
    assert resolved.context_window == 8192
    assert resolved.sources["context_window"].startswith("project file")


def test_a_configured_max_output_is_kept(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(probe, "discover", lambda *a: probe.Found(8192, "x", None))
    settings, env = _settings(tmp_path, max_output_tokens=1024)
    assert resolve(settings, env).max_output_tokens == 1024


def test_the_bundled_engine_and_known_models_ask_nothing(tmp_path: Path, monkeypatch) -> None:
    def refuse(*args: object) -> None:
        raise AssertionError("asked")

    monkeypatch.setattr(probe, "discover", refuse)
    env = {"SPARK_CONFIG_DIR": str(tmp_path / "cfg"), "SPARK_CACHE_DIR": str(tmp_path / "c"),
           "CEREBRAS_API_KEY": "csk-0123456789abcdef"}
    mock = load_settings(tmp_path, {}, env)
    assert resolve(mock, env) == mock
    cerebras = resolve(load_settings(tmp_path, {"provider": "cerebras"}, env), env)
    assert cerebras.context_window == 131_072
    assert cerebras.sources["context_window"] == "known model gpt-oss-120b (cerebras)"
    assert cerebras.token_scale == 1.0


def test_a_window_learned_from_an_overflow_is_kept_for_the_next_run(tmp_path: Path,
                                                                   monkeypatch) -> None:
    monkeypatch.setattr(probe, "discover", lambda *a: probe.Found(None, "", "llama-cpp-python"))
    settings, env = _settings(tmp_path)
    first = resolve(settings, env)
    assert first.context_window == 128_000  # llama-cpp-python's server does not say
    remember(first, 2048, 1.31, env)
    facts = cached(BASE, "smol", env)
    assert facts is not None
    assert (facts.window, facts.where, facts.tokenizer, facts.scale) == (
        2048, "the server's overflow answer", "llama-cpp-python", 1.31)
    later = resolve(settings, env)
    assert (later.context_window, later.max_output_tokens) == (2048, 512)
    assert later.token_scale == pytest.approx(1.31 * window_setup.MARGIN)


def test_a_stale_entry_is_asked_again(tmp_path: Path, monkeypatch) -> None:
    settings, env = _settings(tmp_path)
    store(BASE, "smol", ServerFacts(4096, "old", None, None, time.time() - 2 * window_setup.TTL_S),
          env)
    monkeypatch.setattr(probe, "discover", lambda *a: probe.Found(8192, "new", None))
    assert resolve(settings, env).context_window == 8192


def test_the_exact_count_measures_the_ratio_near_the_cap(tmp_path: Path, monkeypatch) -> None:
    settings, env = _settings(tmp_path)
    store(BASE, "smol", ServerFacts(8192, "x", "llama.cpp", None, time.time()), env)
    settings = resolve(settings, env)
    counted: list[str] = []

    def count(root: str, tokenizer: str, model: str, key: str | None, text: str) -> int:
        counted.append(text)
        return 1300 - window_setup.TEMPLATE_TOKENS * 2

    monkeypatch.setattr(probe, "count", count)
    request = TurnRequest("smol", (Message("user", "hello"),), instructions="be brief")
    assert window_setup.exact_scale(settings, request, 1000, env) == pytest.approx(1.3)
    assert counted == ["be brief\nhello"]
    facts = cached(BASE, "smol", env)
    assert facts is not None and facts.scale == pytest.approx(1.3)
