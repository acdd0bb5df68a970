"""Keeping API keys out of commands: the environment scrub and the output mask."""

from __future__ import annotations

import pytest

from spark_cli.protocol.secrets import OUTPUT_MASK as MASK
from spark_cli.protocol.secrets import Masker, scrubbed_env


def test_scrubbed_env_drops_keys_tokens_and_the_provider_key() -> None:
    environ = {"PATH": "/bin", "OPENAI_API_KEY": "a", "Cerebras_Api_Key": "b",
               "GH_TOKEN": "c", "SPARK_API_KEY": "d", "MY_KEY_COPY": "provider-secret",
               "TOKENIZER": "kept", "HOME": "/root"}
    assert scrubbed_env(environ, ["provider-secret", ""]) == {
        "PATH": "/bin", "TOKENIZER": "kept", "HOME": "/root"}


SECRET = "sk-0123456789abcdef"


@pytest.mark.parametrize("cut", range(1, len(SECRET)))
def test_masker_masks_a_secret_split_anywhere(cut: int) -> None:
    masker = Masker([SECRET, "short"])
    text = f"key={SECRET} and again {SECRET}!"
    split = text.index(SECRET) + cut
    out = masker.feed(text[:split]) + masker.feed(text[split:]) + masker.flush()
    assert out == f"key={MASK} and again {MASK}!"


def test_masker_holds_back_only_a_possible_start() -> None:
    masker = Masker([SECRET, "short"])  # "short" is under 8 characters: never masked
    assert masker.feed("short text sk-01") == "short text "
    assert masker.feed("2 no") == "sk-012 no"
    assert masker.feed("tail sk") == "tail "
    assert masker.flush() == "sk" and masker.flush() == ""


def test_masker_without_secrets_passes_text_through() -> None:
    masker = Masker(["tiny", ""])
    assert masker.feed("tiny sk-") == "tiny sk-" and masker.flush() == ""
