"""load_deep_settings: the [deep] table, its precedence and sources, bad tables named."""

from __future__ import annotations

from pathlib import Path

import pytest
from trusting import state_env, trust

from spark_cli.session.config.settings import SettingsError, load_settings
from spark_cli.session.deep.deep_settings import deep_flags, load_deep_settings


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "user").mkdir()
    (tmp_path / "repo" / ".spark").mkdir(parents=True)
    return tmp_path


def _env(home: Path, **extra: str) -> dict[str, str]:
    return state_env(SPARK_CONFIG_DIR=str(home / "user"), **extra)


def test_default_is_the_bundled_engine_with_spark_deep(home: Path) -> None:
    s = load_deep_settings(home / "repo", {}, _env(home))
    assert (s.provider.name, s.provider.kind, s.provider.model) == ("mock", "mock", "spark-deep")
    assert s.sources["model"] == "default (deep)"
    assert s.problems == ()


def test_fast_flags_and_env_do_not_leak_into_the_deep_track(home: Path) -> None:
    flags = {"provider": "cerebras", "model": "fast-one", "max_output_tokens": 99}
    s = load_deep_settings(home / "repo", flags,
                           _env(home, SPARK_PROVIDER="cerebras", SPARK_MODEL="m",
                                SPARK_BASE_URL="http://127.0.0.1:9/v1"))
    assert (s.provider.name, s.provider.model, s.provider.base_url) == ("mock", "spark-deep",
                                                                        None)
    assert s.max_output_tokens == 99  # shared flags do apply


def test_user_then_project_then_env_then_flags(home: Path) -> None:
    user = home / "user" / "config.toml"
    user.write_text('provider = "cerebras"\n[deep]\npreset = "openai"\nmodel = "gpt-deep-u"\n')
    project = home / "repo" / ".spark" / "config.toml"
    project.write_text('[deep]\nmodel = "gpt-deep-p"\nmax_output_tokens = 32000\n')
    trust(home / "repo")
    env = _env(home, OPENAI_API_KEY="sk-test-0123456789abcdef")
    s = load_deep_settings(home / "repo", {}, env)
    assert (s.provider.name, s.provider.kind, s.provider.model) == ("openai", "responses_ws",
                                                                    "gpt-deep-p")
    assert s.provider.api_key == "sk-test-0123456789abcdef"
    assert s.max_output_tokens == 32000
    assert s.sources["provider"] == f"user file {user} [deep]"
    assert s.sources["model"] == f"project file {project} [deep]"
    s = load_deep_settings(home / "repo", {}, {**env, "SPARK_DEEP_MODEL": "from-env"})
    assert (s.provider.model, s.sources["model"]) == ("from-env", "env SPARK_DEEP_MODEL")
    s = load_deep_settings(home / "repo", {"deep_model": "from-flag"},
                           {**env, "SPARK_DEEP_MODEL": "from-env"})
    assert (s.provider.model, s.sources["model"]) == ("from-flag", "flag --deep-model")
    # the fast settings read the same files and ignore the [deep] table
    fast = load_settings(home / "repo", {}, _env(home, CEREBRAS_API_KEY="k" * 20))
    assert (fast.provider.name, fast.max_output_tokens) == ("cerebras", 8192)


def test_a_model_for_another_provider_is_not_carried_over(home: Path) -> None:
    (home / "user" / "config.toml").write_text('[deep]\nprovider = "openai"\nmodel = "x"\n')
    s = load_deep_settings(home / "repo", {"deep_provider": "mock"}, _env(home))
    assert (s.provider.name, s.provider.model) == ("mock", "spark-deep")


def test_missing_key_is_a_problem_line_or_an_error_when_checked(home: Path) -> None:
    (home / "repo" / ".spark" / "config.toml").write_text('[deep]\nprovider = "openai"\n')
    trust(home / "repo")
    s = load_deep_settings(home / "repo", {}, _env(home))
    assert s.provider.model == "gpt-5.3-codex"
    assert s.problems and "deep provider 'openai' needs an API key" in s.problems[0]
    with pytest.raises(SettingsError, match="OPENAI_API_KEY"):
        load_deep_settings(home / "repo", {}, _env(home), check=True)


@pytest.mark.parametrize(("text", "words"), [
    ('[deep]\nmodel = 3\n', "[deep]: 'model' must be a string"),
    ('[deep]\nprovider = "nope"\n', "[deep]: unknown provider 'nope'"),
    ('[deep]\ntemperature = 1\n', "[deep]: unknown key 'temperature'"),
    ('[deep]\napi_key = "sk-x"\n', "[deep]: 'api_key' is not read from config files"),
    ('[deep]\nmax_output_tokens = 0\n', "[deep]: 'max_output_tokens' must be greater than 0"),
    ('[deep]\nedit_format = "diff"\n', "'edit_format' must be one of"),
    ('deep = "openai"\n', "'deep' must be a table"),
    ('[deep\n', "not valid TOML"),
])
def test_a_bad_deep_table_names_the_file_and_key(home: Path, text: str, words: str) -> None:
    path = home / "repo" / ".spark" / "config.toml"
    path.write_text(text)
    trust(home / "repo")
    with pytest.raises(SettingsError) as caught:
        load_deep_settings(home / "repo", {}, _env(home))
    assert str(path) in str(caught.value)
    assert words in str(caught.value)


def test_bad_flag_is_named(home: Path) -> None:
    with pytest.raises(SettingsError, match="--deep-provider"):
        load_deep_settings(home / "repo", {"deep_provider": "nope"}, _env(home))


def test_one_shot_flags_become_deep_flags() -> None:
    assert deep_flags({"provider": "openai", "model": "m", "deep": True, "edit_format": "x",
                       "max_output_tokens": 5}) == {
        "deep_provider": "openai", "deep_model": "m", "deep_edit_format": "x",
        "max_output_tokens": 5}
