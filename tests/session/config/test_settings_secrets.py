"""Settings gather every key spark can see (for masking), never show one in a repr."""

from __future__ import annotations

from pathlib import Path

from spark_cli.session.config.settings import load_settings


def test_every_preset_variable_every_config_variable_and_the_key_in_use(tmp_path: Path) -> None:
    (tmp_path / ".spark").mkdir()
    (tmp_path / ".spark" / "config.toml").write_text(
        'provider = "cerebras"\napi_key_env = "TEAM_KEY"\n'
        '[providers.openai-compatible]\napi_key_env = "LOCAL_KEY"\n')
    env = {"SPARK_CONFIG_DIR": str(tmp_path / "none"), "OPENAI_API_KEY": "sk-openai-1111",
           "CEREBRAS_API_KEY": "csk-cerebras-2222", "TEAM_KEY": "team-3333",
           "LOCAL_KEY": "local-4444", "UNRELATED": "not-a-key-5555"}
    provider = load_settings(tmp_path, {}, env).provider
    assert provider.api_key == "team-3333"
    assert set(provider.secrets) == {"sk-openai-1111", "csk-cerebras-2222", "team-3333",
                                     "local-4444"}
    assert "team-3333" not in repr(provider) and "sk-openai" not in repr(provider)


def test_spark_api_key_is_a_secret_and_the_key_in_use(tmp_path: Path) -> None:
    env = {"SPARK_CONFIG_DIR": str(tmp_path), "SPARK_API_KEY": "sk-spark-6666",
           "OPENAI_API_KEY": "sk-openai-7777"}
    provider = load_settings(tmp_path, {"provider": "openai"}, env).provider
    assert provider.api_key == "sk-spark-6666"
    assert set(provider.secrets) == {"sk-spark-6666", "sk-openai-7777"}
