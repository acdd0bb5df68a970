"""Settings gather every key spark can see (for masking), never show one in a repr."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from spark_cli.protocol.secrets import Secrets
from spark_cli.session.config.settings import SettingsError, load_settings
from spark_cli.session.conversation import Session
from spark_cli.session.events import TurnCompleted


def test_every_preset_variable_every_config_variable_and_the_key_in_use(tmp_path: Path) -> None:
    (tmp_path / "user").mkdir()
    (tmp_path / "user" / "config.toml").write_text(  # api_key_env: the user config's alone
        'provider = "cerebras"\napi_key_env = "TEAM_KEY"\n'
        '[providers.openai-compatible]\napi_key_env = "LOCAL_KEY"\n')
    env = {"SPARK_CONFIG_DIR": str(tmp_path / "user"), "OPENAI_API_KEY": "sk-openai-1111",
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


@pytest.mark.parametrize(("key", "said"), [
    ("sk-abcd\nefgh", "a line break at position 8"),
    ("sk-abcdefgh\r\n", "a line break at position 12"),
    ("sk-abcdefgh\n", "a line break at its end"),
    ("sk-ab\x00cd", "a control character (U+0000) at position 6"),
    ("sk-abcéd", "a non-ASCII character (U+00E9) at position 7"),
])
def test_a_key_no_header_can_carry_is_refused_before_anything_is_sent(
        tmp_path: Path, key: str, said: str) -> None:
    env = {"SPARK_CONFIG_DIR": str(tmp_path), "OPENAI_API_KEY": key}
    with pytest.raises(SettingsError) as caught:
        load_settings(tmp_path, {"provider": "openai"}, env)
    message = str(caught.value)
    assert f"the API key in OPENAI_API_KEY has {said}" in message
    assert "sk-ab" not in message  # the key itself is never shown
    shown = load_settings(tmp_path, {"provider": "openai"}, env, check=False)
    assert any(said in problem for problem in shown.problems)  # what `spark config` lists


def test_a_plain_key_passes(tmp_path: Path) -> None:
    env = {"SPARK_CONFIG_DIR": str(tmp_path), "OPENAI_API_KEY": "sk-proj_AZaz09-._~+/="}
    assert load_settings(tmp_path, {"provider": "openai"}, env).problems == ()


async def test_a_session_builds_one_secrets_object(tmp_path: Path, engine_factory: Any,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings, channel, each turn's commands policy: all mask through the one ``Secrets``
    the settings hold (issue 41 item 2)."""
    from spark_cli.cli.wiring import open_provider_channel

    built: list[Secrets] = []
    real = Secrets.__init__

    def counted(self: Secrets, values: Iterable[str | None] = ()) -> None:
        built.append(self)
        real(self, values)

    engine = await engine_factory()
    monkeypatch.setattr(Secrets, "__init__", counted)
    (tmp_path / "app.py").write_text("def f():\n    return 1\n")
    settings = load_settings(tmp_path, {"provider": "mock", "base_url": engine.url + "/v1"},
                             {"SPARK_CONFIG_DIR": str(tmp_path / "none"),
                              "SPARK_API_KEY": engine.token})
    async with open_provider_channel(settings.provider, idle_timeout=20) as channel:
        session = Session(channel, tmp_path, settings)
        for _ in range(2):
            events = [e async for e in session.run_turn("explain app.py", ["app.py"])]
            assert isinstance(events[-1], TurnCompleted), events[-1]
    assert built == [settings.provider.secrets]
