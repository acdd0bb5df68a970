"""Which command lines run without asking, and keeping API keys out of commands."""

from __future__ import annotations

import pytest

from spark_cli.checks.command_run import allowed_by, is_compound
from spark_cli.protocol.secrets import OUTPUT_MASK as MASK
from spark_cli.protocol.secrets import Masker, scrubbed_env

ALLOWED = ["pytest", "make test", "ruff check", "bad 'quote"]


@pytest.mark.parametrize(("command", "allowed"), [
    ("pytest", True),
    ("pytest -q tests", True),
    ("  pytest   -q", True),
    ("make test", True),
    ("make install", False),
    ("make", False),
    ("ruff check spark_cli", True),
    ("ruff format", False),
    ("pytesty", False),
    ("'pytest' -q", True),
    ("pytest; rm -rf /", False),
    ("pytest && rm x", False),
    ("pytest || true", False),
    ("pytest | tee log", False),
    ("pytest > log", False),
    ("pytest < input", False),
    ("pytest `rm x`", False),
    ("pytest $(rm x)", False),
    ("pytest\nrm x", False),
    ("pytest &", False),
    ("pytest 'open quote", False),
    ("", False),
    ("FOO=1 pytest", False),
    ("bad", False),
])
def test_allowed_by_leading_words(command: str, allowed: bool) -> None:
    assert allowed_by(command, ALLOWED) is allowed


def test_compound_lines() -> None:
    assert [is_compound(c) for c in ("ls -la", "echo $HOME", "a;b", "a & b", "echo `x`",
                                     "cat <f", "echo \"a|b\"")] == [
        False, False, True, True, True, True, True]


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
