"""Settings: presets, precedence and sources, keys from the environment only, bad files."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from trusting import state_env, trust

from spark_cli.session.config.settings import SettingsError, load_settings, mask_key

KEY = "sk-proj-SECRETSECRET-9876abcd"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "user").mkdir()
    (tmp_path / "repo").mkdir()
    return tmp_path


def _env(home: Path, **extra: str) -> dict[str, str]:
    return state_env(SPARK_CONFIG_DIR=str(home / "user"), **extra)


def _user(home: Path, text: str) -> Path:
    path = home / "user" / "config.toml"
    path.write_text(text)
    return path


def _project(home: Path, text: str) -> Path:
    path = home / "repo" / ".spark" / "config.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    trust(home / "repo")  # these tests read it
    return path


def test_defaults_are_the_bundled_engine(home: Path) -> None:
    s = load_settings(home / "repo", env=_env(home))
    assert (s.provider.name, s.provider.kind, s.provider.base_url) == ("mock", "mock", None)
    assert s.provider.model == "gpt-5.3-codex-spark" and s.provider.api_key is None
    assert s.edit_format == "search_replace" and s.context_window == 128_000
    assert s.sources["provider"] == "default" and s.sources["context_window"] == "default"
    assert s.input_budget == s.context_window - s.max_output_tokens
    assert s.files == () and s.problems == ()


@pytest.mark.parametrize(("name", "kind", "url", "fmt", "key_env"), [
    ("openai", "responses_ws", "https://api.openai.com/v1", "apply_patch", "OPENAI_API_KEY"),
    ("cerebras", "chat_sse", "https://api.cerebras.ai/v1", "search_replace", "CEREBRAS_API_KEY"),
])
def test_hosted_presets_read_their_key(home: Path, name: str, kind: str, url: str, fmt: str,
                                       key_env: str) -> None:
    s = load_settings(home / "repo", {"provider": name}, _env(home, **{key_env: KEY}))
    assert (s.provider.kind, s.provider.base_url, s.edit_format) == (kind, url, fmt)
    assert s.provider.api_key == KEY and s.provider.key_env == key_env
    assert s.provider.model and s.sources["api_key"] == f"env {key_env}"
    assert s.sources["provider"] == "flag --provider"


def test_hosted_preset_without_key_is_a_clear_error(home: Path) -> None:
    with pytest.raises(SettingsError, match="needs an API key: set OPENAI_API_KEY"):
        load_settings(home / "repo", {"provider": "openai"}, _env(home))
    s = load_settings(home / "repo", {"provider": "openai"}, _env(home), check=False)
    assert s.problems and "OPENAI_API_KEY" in s.problems[0]


def test_spark_api_key_overrides_any_preset_key(home: Path) -> None:
    env = _env(home, OPENAI_API_KEY="sk-openai-0000000000000", SPARK_API_KEY=KEY)
    s = load_settings(home / "repo", {"provider": "openai"}, env)
    assert s.provider.api_key == KEY and s.provider.key_env == "SPARK_API_KEY"


def test_openai_compatible_needs_base_url_not_key(home: Path) -> None:
    with pytest.raises(SettingsError, match="needs a base_url"):
        load_settings(home / "repo", {"provider": "openai-compatible", "model": "qwen"},
                      _env(home))
    s = load_settings(home / "repo", {"provider": "openai-compatible", "model": "qwen",
                                      "base_url": "http://localhost:11434/v1"}, _env(home))
    assert s.provider.kind == "chat_sse" and s.provider.api_key is None
    assert s.provider.base_url == "http://localhost:11434/v1"


def test_mock_with_base_url_means_a_running_engine(home: Path) -> None:
    s = load_settings(home / "repo", {"base_url": "http://127.0.0.1:9999/v1"}, _env(home))
    assert s.provider.kind == "mock" and s.provider.base_url == "http://127.0.0.1:9999/v1"
    assert s.sources["base_url"] == "flag --base-url"


def test_precedence_user_project_env_flag_with_sources(home: Path) -> None:
    user = _user(home, 'model = "from-user"\ncontext_window = 64000\nidle_timeout = 5\n'
                       'max_output_tokens = 1000\n')
    project = _project(home, 'model = "from-project"\ncontext_window = 32000\n'
                             'test_command = "make check"\n')
    env = _env(home, SPARK_MODEL="from-env")
    s = load_settings(home / "repo", {"max_output_tokens": 2000}, env)
    assert s.provider.model == "from-env" and s.sources["model"] == "env SPARK_MODEL"
    assert s.context_window == 32000 and s.sources["context_window"] == f"project file {project}"
    assert s.idle_timeout == 5.0 and s.sources["idle_timeout"] == f"user file {user}"
    assert s.max_output_tokens == 2000 and s.sources["max_output_tokens"] == \
        "flag --max-output-tokens"
    assert s.test_command == "make check"
    assert s.files == (str(user), str(project))
    flagged = load_settings(home / "repo", {"model": "from-flag"}, env)
    assert flagged.provider.model == "from-flag" and flagged.sources["model"] == "flag --model"


def test_provider_tables_apply_to_their_provider_only(home: Path) -> None:
    path = _user(home, '[providers.cerebras]\nmodel = "llama-3.3-70b"\n'
                       '[providers.openai]\nedit_format = "search_replace"\n')
    env = _env(home, CEREBRAS_API_KEY=KEY)
    s = load_settings(home / "repo", {"provider": "cerebras"}, env)
    assert s.provider.model == "llama-3.3-70b"
    assert s.sources["model"] == f"user file {path} [providers.cerebras]"
    assert s.edit_format == "search_replace" and s.sources["edit_format"] == "preset cerebras"


def test_top_level_model_for_another_provider_is_not_carried_over(home: Path) -> None:
    _user(home, 'provider = "openai-compatible"\nmodel = "qwen2.5-coder"\n'
                'base_url = "http://localhost:8000/v1"\n')
    s = load_settings(home / "repo", {"provider": "cerebras"}, _env(home, CEREBRAS_API_KEY=KEY))
    assert s.provider.model != "qwen2.5-coder"
    assert s.provider.base_url == "https://api.cerebras.ai/v1"


def test_env_provider_and_base_url(home: Path) -> None:
    env = _env(home, SPARK_PROVIDER="openai-compatible", SPARK_BASE_URL="http://h:1/v1",
               SPARK_MODEL="m")
    s = load_settings(home / "repo", env=env)
    assert s.provider.name == "openai-compatible" and s.sources["provider"] == \
        "env SPARK_PROVIDER"
    assert s.provider.base_url == "http://h:1/v1"


@pytest.mark.parametrize(("text", "words"), [
    ("colour = 'red'\n", "unknown key 'colour'"),
    ("context_window = '128k'\n", "'context_window' must be an integer, not str"),
    ("allow_syntax_errors = 1\n", "'allow_syntax_errors' must be a boolean"),
    ("context_window = true\n", "'context_window' must be an integer, not bool"),
    ("idle_timeout = -1\n", "'idle_timeout' must be greater than 0"),
    ("compact_at = 1.5\n", "'compact_at' must be a number between 0 and 1 (a share of the "
                           "window), not 1.5"),
    ("compact_at = 0\n", "'compact_at' must be greater than 0"),
    ("compact_keep_turns = -1\n", "'compact_keep_turns' must be 0 or more"),
    ("edit_format = 'udiff'\n", "'edit_format' must be one of search_replace, apply_patch"),
    ("provider = 'anthropic'\n", "unknown provider 'anthropic'"),
    ("api_key = 'sk-xyz'\n", "not read from config files"),
    ("[providers.openai]\napi_key = 'sk-xyz'\n", "not read from config files"),
    ("[providers.openai]\ntemperature = 1\n", "unknown key 'temperature'"),
    ("[providers.nope]\nmodel = 'x'\n", "unknown provider 'nope'"),
    ("model = \n", "not valid TOML"),
])
def test_bad_project_file_names_file_key_and_type(home: Path, text: str, words: str) -> None:
    path = _project(home, text)
    with pytest.raises(SettingsError) as info:
        load_settings(home / "repo", env=_env(home))
    assert str(path) in str(info.value) and words in str(info.value)
    assert "sk-xyz" not in str(info.value)
    assert path.read_text() == text  # nothing rewritten


def test_bad_flag_value_is_named(home: Path) -> None:
    with pytest.raises(SettingsError, match="--edit-format"):
        load_settings(home / "repo", {"edit_format": "diff"}, _env(home))
    with pytest.raises(SettingsError, match="unknown provider"):
        load_settings(home / "repo", {"provider": "nope"}, _env(home))


def test_key_is_masked_everywhere(home: Path) -> None:
    s = load_settings(home / "repo", {"provider": "openai"}, _env(home, OPENAI_API_KEY=KEY))
    assert KEY not in repr(s) and KEY not in str(s) and KEY not in repr(s.provider)
    assert KEY not in str(s.as_dict())
    assert s.provider.masked_key == "sk-…abcd" == mask_key(KEY)
    assert mask_key("short") == "…" and mask_key(None) == "(not set)"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the Linux XDG rule")
@pytest.mark.parametrize("xdg", [None, "", "/tmp/xdg-config", "relative/dir"])
def test_the_user_config_dir_on_linux_is_the_one_platformdirs_gives(
    xdg: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import platformdirs

    from spark_cli.session.config.layers import user_config_path

    if xdg is None:
        monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CONFIG_HOME", xdg)
    monkeypatch.delenv("SPARK_CONFIG_DIR", raising=False)
    expected = Path(platformdirs.user_config_dir("spark", appauthor=False)) / "config.toml"
    assert user_config_path(os.environ) == expected


def test_a_config_file_that_is_not_utf8_is_named(home: Path) -> None:
    path = home / "repo" / ".spark" / "config.toml"
    path.parent.mkdir()
    path.write_bytes(b"model = '\xff'\n")
    trust(home / "repo")
    with pytest.raises(SettingsError) as info:
        load_settings(home / "repo", env=_env(home))
    assert str(path) in str(info.value) and "not valid TOML" in str(info.value)


def test_command_env_and_sandbox_deny_read_from_the_user_file(home: Path) -> None:
    _user(home, 'command_env = ["GOPATH", "MY_TOOL_HOME"]\n'
                'sandbox_deny_read = ["~/.config/op", "/srv/keys"]\n')
    settings = load_settings(home / "repo", env=_env(home))
    assert settings.command_env == ("GOPATH", "MY_TOOL_HOME")
    assert settings.sandbox_deny_read == ("~/.config/op", "/srv/keys")
    assert settings.as_dict()["command_env"] == ["GOPATH", "MY_TOOL_HOME"]
    assert load_settings(home / "repo", env=_env(home / "none")).command_env == ()


@pytest.mark.parametrize(("text", "said"), [
    ('command_env = ["OK", "NOT A NAME"]', "'command_env' must be a list of environment "
                                           "variable names"),
    ('command_env = "GOPATH"', "'command_env' must be a list"),
    ('sandbox_deny_read = ["relative/path"]', "'sandbox_deny_read' must be a list of absolute "
                                              "or ~/ paths"),
])
def test_bad_command_env_or_deny_read_names_the_key(home: Path, text: str, said: str) -> None:
    path = _user(home, text + "\n")
    with pytest.raises(SettingsError, match=f"{path}: {said}"):
        load_settings(home / "repo", env=_env(home))
