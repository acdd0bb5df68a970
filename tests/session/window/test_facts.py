"""The window a run uses: configured, known, stated by the server, unknown, or learned at an
overflow (a hint: dropped when the server shows it changed); max_output follows it."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from trusting import state_env, trust

from spark_cli.session.config.settings import load_settings, with_window
from spark_cli.session.window import facts
from spark_cli.session.window.facts import (
    SILENT,
    UNKNOWN,
    ServerFacts,
    cached,
    forget,
    is_hint,
    known_window,
    remember,
    resolve,
    store,
)
from spark_cli.session.window.learning import LEARNED_NOW, beyond_hint

LOCAL = "http://127.0.0.1:9/v1"


def _settings(tmp_path: Path, base: str = LOCAL, **flags: object) -> Any:
    env = state_env(SPARK_CONFIG_DIR=str(tmp_path / "cfg"), SPARK_CACHE_DIR=str(tmp_path / "c"))
    return load_settings(tmp_path, {"provider": "openai-compatible", "base_url": base,
                                    "model": "smol", **flags}, env), env


class Server:
    """A stand-in for the transport's probe: answers what it is told, counts the asks."""

    def __init__(self, *answers: ServerFacts | None) -> None:
        self.answers = list(answers)
        self.asked: list[bool] = []

    def __call__(self, base_url: str, model: str, api_key: str | None, *,
                 tokenizer: bool) -> ServerFacts | None:
        self.asked.append(tokenizer)
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


def test_a_server_is_asked_once_a_day_its_cached_answer_a_hint(tmp_path: Path) -> None:
    server = Server(ServerFacts(8192, "llama.cpp /props n_ctx", "llama.cpp", served="a.gguf"),
                    ServerFacts(2048, "llama.cpp /props n_ctx", None, served="a.gguf"))
    settings, env = _settings(tmp_path)
    first = resolve(settings, server, env)
    assert (first.context_window, first.max_output_tokens) == (8192, 2048)
    assert first.sources["context_window"] == "server: llama.cpp /props n_ctx"
    assert first.token_scale == facts.ESTIMATE_SCALE and not is_hint(first)  # its word
    again = resolve(settings, server, env)
    assert again.context_window == 8192 and len(server.asked) == 1
    assert again.sources["context_window"].startswith(facts.CACHED) and is_hint(again)
    fresh = resolve(settings, server, env, fresh=True)  # `spark config`: restarted at 2k
    assert fresh.context_window == 2048 and not is_hint(fresh)
    assert server.asked == [True, False]  # its tokenizer was known already
    stored = cached(settings, env)
    assert stored is not None and stored.tokenizer == "llama.cpp"
    store(settings, ServerFacts(4096, "old", at=time.time() - 2 * facts.TTL_S), env)
    assert resolve(settings, server, env).context_window == 2048  # stale: asked again


def test_a_configured_window_wins_and_max_output_follows_it(tmp_path: Path) -> None:
    (tmp_path / ".spark").mkdir()
    (tmp_path / ".spark" / "config.toml").write_text("context_window = 8192\n")
    trust(tmp_path)
    settings, env = _settings(tmp_path)
    assert (settings.context_window, settings.max_output_tokens) == (8192, 2048)
    resolved = resolve(settings, Server(ServerFacts(32768, "x")), env)
    assert resolved.context_window == 8192
    assert resolved.sources["context_window"].startswith("project file")
    kept, env = _settings(tmp_path / "b", max_output_tokens=1024)
    assert resolve(kept, Server(ServerFacts(8192, "x")), env).max_output_tokens == 1024


def test_the_bundled_engine_and_known_models_ask_nothing(tmp_path: Path) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("asked")

    env = {"SPARK_CONFIG_DIR": str(tmp_path / "cfg"), "SPARK_CACHE_DIR": str(tmp_path / "c"),
           "CEREBRAS_API_KEY": "csk-0123456789abcdef"}
    mock = load_settings(tmp_path, {}, env)
    assert resolve(mock, refuse, env) == mock
    cerebras = resolve(load_settings(tmp_path, {"provider": "cerebras"}, env), refuse, env)
    assert cerebras.context_window == 131_072
    assert cerebras.sources["context_window"] == "known model gpt-oss-120b (cerebras)"
    assert known_window("openai", "gpt-5.3-codex") == 400_000  # the longest prefix wins
    assert known_window("openai-compatible", "gpt-5") is None


def test_a_mute_or_absent_server_leaves_the_window_unknown_never_a_default(
        tmp_path: Path) -> None:
    settings, env = _settings(tmp_path)
    mute = resolve(settings, Server(ServerFacts(None, "", "llama-cpp-python")), env)
    assert mute.sources["context_window"] == UNKNOWN and is_hint(mute)
    settings, env = _settings(tmp_path / "b")
    absent = resolve(settings, Server(None), env)
    assert absent.sources["context_window"] == SILENT and is_hint(absent)


def test_a_learned_window_is_a_hint_kept_until_the_server_shows_a_change(
        tmp_path: Path) -> None:
    settings, env = _settings(tmp_path)
    server = Server(ServerFacts(None, "", "llama-cpp-python", served="a.gguf"))
    first = resolve(settings, server, env)
    learned_now = with_window(first, 2048, LEARNED_NOW, token_scale=1.35)
    remember(learned_now, env)
    later = resolve(settings, server, env)
    assert (later.context_window, later.max_output_tokens) == (2048, 512)
    assert later.sources["context_window"].startswith("learned 2048 at the overflow of ")
    assert is_hint(later) and later.token_scale == pytest.approx(1.35, abs=0.01)
    other_model = resolve(settings, Server(ServerFacts(None, "", None, served="b.gguf")), env,
                          fresh=True)
    assert other_model.sources["context_window"] == UNKNOWN  # another model file: dropped
    remember(learned_now, env)
    stated = resolve(settings, Server(ServerFacts(8192, "llama.cpp /props n_ctx",
                                                  served="a.gguf")), env, fresh=True)
    assert stated.context_window == 8192 and not is_hint(stated)  # the server's word wins


def test_forgetting_a_learned_window(tmp_path: Path) -> None:
    settings, env = _settings(tmp_path)
    server = Server(ServerFacts(None, "", None, served="a.gguf"))
    remember(with_window(resolve(settings, server, env), 2048, LEARNED_NOW), env)
    learned = resolve(settings, server, env)
    assert learned.context_window == 2048
    assert forget(learned, env).sources["context_window"] == UNKNOWN
    assert resolve(settings, server, env).sources["context_window"] == UNKNOWN
    stated = resolve(settings, Server(ServerFacts(8192, "x")), env, fresh=True)
    assert forget(stated, env) == stated  # a stated window is not forgotten


def test_a_request_that_succeeds_beyond_a_learned_window_drops_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings, env = _settings(tmp_path)
    monkeypatch.setenv("SPARK_CACHE_DIR", env["SPARK_CACHE_DIR"])  # the session's own cache
    server = Server(ServerFacts(None, "", None, served="a.gguf"))
    remember(with_window(resolve(settings, server, env), 2048, LEARNED_NOW), env)
    learned = resolve(settings, server, env)
    assert beyond_hint(learned, 1900) is None
    dropped = beyond_hint(learned, 5000)
    assert dropped is not None and dropped.sources["context_window"] == UNKNOWN
    assert dropped.context_window == 128_000
    entry = cached(settings, env)
    assert entry is not None and entry.window is None and not entry.learned
