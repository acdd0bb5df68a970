"""Settings: presets, precedence (default < user < project < env < flags), masking, bad files."""

from __future__ import annotations

from pathlib import Path

import pytest
from trusting import state_env, trust

from spark_cli.session.config.settings import SettingsError, load_settings, mask_key

KEY = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    root = tmp_path / "repo"
    (root / ".spark").mkdir(parents=True)
    user = tmp_path / "user-config"
    user.mkdir()
    return root, user, state_env(SPARK_CONFIG_DIR=str(user))


def write(path: Path, text: str) -> Path:
    """Write a config file; a project's is trusted (these tests read it)."""
    path.write_text(text)
    if path.parent.name == ".spark":
        trust(path.parent.parent)
    return path


def test_defaults_are_the_mock_preset(dirs):
    root, _user, env = dirs
    s = load_settings(root, {}, env)
    assert s.provider.name == "mock" and s.provider.kind == "mock"
    assert s.provider.base_url is None and s.provider.api_key is None
    assert s.edit_format == "search_replace"
    assert s.context_window == 128_000
    assert s.input_budget == s.context_window - s.max_output_tokens
    assert s.sources["provider"] == "default"
    assert s.sources["context_window"] == "default"
    assert s.sources["model"] == "preset mock"
    assert s.problems == ()


@pytest.mark.parametrize(
    ("name", "kind", "base_url", "key_env", "fmt"),
    [
        ("openai", "responses_ws", "https://api.openai.com/v1", "OPENAI_API_KEY", "apply_patch"),
        ("cerebras", "chat_sse", "https://api.cerebras.ai/v1", "CEREBRAS_API_KEY",
         "search_replace"),
    ],
)
def test_hosted_presets(dirs, name, kind, base_url, key_env, fmt):
    root, _user, env = dirs
    s = load_settings(root, {"provider": name}, {**env, key_env: KEY})
    p = s.provider
    assert (p.kind, p.base_url, p.key_env, p.api_key) == (kind, base_url, key_env, KEY)
    assert s.edit_format == fmt
    assert s.sources["api_key"] == f"env {key_env}"
    assert s.sources["provider"] == "flag --provider"


def test_openai_default_model_is_spark(dirs):
    root, _user, env = dirs
    s = load_settings(root, {"provider": "openai"}, {**env, "OPENAI_API_KEY": KEY})
    assert s.provider.model == "gpt-5.3-codex-spark"


def test_spark_api_key_overrides_every_preset_key(dirs):
    root, _user, env = dirs
    s = load_settings(root, {"provider": "cerebras"},
                      {**env, "CEREBRAS_API_KEY": "c" * 20, "SPARK_API_KEY": KEY})
    assert s.provider.api_key == KEY and s.provider.key_env == "SPARK_API_KEY"


def test_missing_key_is_an_error_unless_unchecked(dirs):
    root, _user, env = dirs
    with pytest.raises(SettingsError, match="OPENAI_API_KEY"):
        load_settings(root, {"provider": "openai"}, env)
    s = load_settings(root, {"provider": "openai"}, env, check=False)
    assert any("OPENAI_API_KEY" in p for p in s.problems)
    assert s.sources["api_key"] == "not set"


def test_openai_compatible_needs_base_url_and_model_but_not_a_key(dirs):
    root, _user, env = dirs
    with pytest.raises(SettingsError, match="base_url") as info:
        load_settings(root, {"provider": "openai-compatible"}, env)
    assert "model" in str(info.value)
    s = load_settings(root, {"provider": "openai-compatible", "model": "qwen2.5-coder",
                             "base_url": "http://localhost:11434/v1"}, env)
    assert s.provider.kind == "chat_sse" and s.provider.api_key is None


def test_precedence_user_project_env_flag(dirs):
    root, user, env = dirs
    ufile = write(user / "config.toml", 'model = "from-user"\ncontext_window = 1000\n'
                  'max_output_tokens = 100\nidle_timeout = 5\n')
    pfile = write(root / ".spark" / "config.toml", 'model = "from-project"\n'
                  'context_window = 2000\ntest_command = "make check"\n')
    s = load_settings(root, {}, env)
    assert s.provider.model == "from-project" and s.context_window == 2000
    assert s.max_output_tokens == 100 and s.idle_timeout == 5.0
    assert s.test_command == "make check"
    assert s.sources["model"] == f"project file {pfile}"
    assert s.sources["max_output_tokens"] == f"user file {ufile}"
    assert s.files == (str(ufile), str(pfile))
    s = load_settings(root, {}, {**env, "SPARK_MODEL": "from-env"})
    assert s.provider.model == "from-env" and s.sources["model"] == "env SPARK_MODEL"
    s = load_settings(root, {"model": "from-flag"}, {**env, "SPARK_MODEL": "from-env"})
    assert s.provider.model == "from-flag" and s.sources["model"] == "flag --model"


def test_provider_tables_apply_only_to_their_provider(dirs):
    root, user, env = dirs
    write(user / "config.toml", 'provider = "cerebras"\nmodel = "llama-3.3-70b"\n'
          '[providers.openai-compatible]\nbase_url = "http://localhost:8000/v1"\n'
          'model = "Qwen/Qwen2.5-Coder-7B"\napi_key_env = "VLLM_KEY"\n')
    full = {**env, "CEREBRAS_API_KEY": KEY, "VLLM_KEY": "local-key-1234567890"}
    s = load_settings(root, {}, full)
    assert s.provider.name == "cerebras" and s.provider.model == "llama-3.3-70b"
    s = load_settings(root, {"provider": "openai-compatible"}, full)
    # the file's flat model was meant for cerebras; the table's is used
    assert s.provider.model == "Qwen/Qwen2.5-Coder-7B"
    assert s.provider.base_url == "http://localhost:8000/v1"
    assert s.provider.api_key == "local-key-1234567890"
    assert "[providers.openai-compatible]" in s.sources["base_url"]


def test_mock_with_base_url_means_a_running_engine(dirs):
    root, _user, env = dirs
    s = load_settings(root, {"base_url": "http://127.0.0.1:8123/v1"}, env)
    assert s.provider.kind == "mock" and s.provider.base_url == "http://127.0.0.1:8123/v1"


def test_flag_edit_format_and_allow_syntax_errors(dirs):
    root, _user, env = dirs
    s = load_settings(root, {"edit_format": "apply_patch", "allow_syntax_errors": True}, env)
    assert s.edit_format == "apply_patch" and s.allow_syntax_errors is True
    assert s.sources["edit_format"] == "flag --edit-format"


def test_masking_never_shows_the_key(dirs):
    root, _user, env = dirs
    s = load_settings(root, {"provider": "openai"}, {**env, "OPENAI_API_KEY": KEY})
    assert mask_key(KEY) == "sk-…6789"
    assert KEY not in repr(s) and KEY not in repr(s.provider) and KEY not in str(s.as_dict())
    assert s.as_dict()["api_key"] == "sk-…6789"
    assert mask_key("short") == "…" and mask_key(None) == "(not set)"


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        ("modle = 'x'\n", ["unknown key 'modle'", "known:"]),
        ("context_window = '128k'\n", ["'context_window' must be an integer", "str"]),
        ("allow_syntax_errors = 1\n", ["'allow_syntax_errors' must be a boolean"]),
        ("idle_timeout = true\n", ["'idle_timeout' must be a number"]),
        ("edit_format = 'udiff'\n", ["'edit_format' must be one of search_replace, apply_patch"]),
        ("max_output_tokens = 0\n", ["greater than 0"]),
        ("provider = 'anthropic'\n", ["unknown provider 'anthropic'"]),
        ("api_key = 'sk-secret'\n", ["not read from config files"]),
        ("[providers.openai]\napi_key = 'sk-secret'\n", ["not read from config files"]),
        ("[providers.nope]\nmodel = 'x'\n", ["unknown provider 'nope'"]),
        ("[providers.openai]\ncolor = 'x'\n", ["unknown key 'color'"]),
        ("model = \n", ["not valid TOML"]),
    ],
)
def test_bad_config_files_name_file_key_and_type(dirs, text, needles):
    root, _user, env = dirs
    path = write(root / ".spark" / "config.toml", text)
    with pytest.raises(SettingsError) as info:
        load_settings(root, {}, env)
    message = str(info.value)
    assert str(path) in message
    for needle in needles:
        assert needle in message
    assert "sk-secret" not in message


def test_bad_flag_value_is_a_clear_error(dirs):
    root, _user, env = dirs
    with pytest.raises(SettingsError, match="--max-output-tokens"):
        load_settings(root, {"max_output_tokens": "many"}, env)
    with pytest.raises(SettingsError, match="unknown setting"):
        load_settings(root, {"colour": "red"}, env)


def test_user_dir_defaults_to_platformdirs(dirs, monkeypatch):
    from spark_cli.session.config.layers import user_config_path

    path = user_config_path({})
    assert path.name == "config.toml" and path.parent.name == "spark"


def test_bad_provider_table_value_names_the_table(dirs):
    root, _user, env = dirs
    path = write(root / ".spark" / "config.toml", "[providers.cerebras]\nmodel = 3\n")
    with pytest.raises(SettingsError) as info:
        load_settings(root, {}, env)
    assert f"{path}: [providers.cerebras]: 'model' must be a string" in str(info.value)


def test_bad_env_provider_names_the_variable(dirs):
    root, _user, env = dirs
    with pytest.raises(SettingsError, match=r"SPARK_PROVIDER.*unknown provider 'nope'"):
        load_settings(root, {}, {**env, "SPARK_PROVIDER": "nope"})
