"""``explain``: the hint each failure kind calls for (the next step, never the key)."""

from __future__ import annotations

import pytest

from spark_cli.session.config.settings import ProviderSettings
from spark_cli.session.failures import explain, with_v1
from spark_cli.transport.errors import endpoint, error_from_body, http10_status, tried

KEY = "sk-abcdefghijklmnop1234"


def provider(name: str = "openai-compatible", kind: str = "chat_sse",
             base_url: str | None = "http://localhost:8080/v1", key: str | None = None,
             key_env: str | None = "SPARK_API_KEY") -> ProviderSettings:
    return ProviderSettings(name, kind, base_url, "m", key, key_env)  # type: ignore[arg-type]


@pytest.mark.parametrize(("url", "fixed"), [
    ("http://localhost:8080", "http://localhost:8080/v1"),
    ("http://localhost:8080/", "http://localhost:8080/v1"),
    ("http://h/api", "http://h/api/v1"),
    ("http://h/v1", None),
    ("https://api.groq.com/openai/v1/", None),
    ("http://u:pw@h:1", "http://***@h:1/v1"),
])
def test_with_v1(url, fixed):
    assert with_v1(url) == fixed


def test_404_without_v1_suggests_adding_it():
    text = explain("not_found", "404 not found: HTTP 404", provider(base_url="http://h:8080"))
    assert text.endswith("; the base URL has no /v1: try --base-url http://h:8080/v1")


def test_404_on_responses_suggests_chat_completions():
    text = explain("not_found", "404", provider("openai", "responses_ws"))
    assert "--provider openai-compatible" in text and "/provider openai-compatible" in text
    assert "/v1:" not in text


def test_404_on_chat_with_v1_adds_nothing():
    assert explain("not_found", "404 x", provider()) == "404 x"


def test_auth_names_the_variable_and_the_masked_key():
    text = explain("auth", "401", provider("openai", "responses_ws", key=KEY,
                                          key_env="OPENAI_API_KEY"))
    assert text == "401; the key from OPENAI_API_KEY (sk-…1234) was refused: check it"


def test_error_body_names_the_url_tried_masked():
    error = error_from_body(404, b"", url="http://u:secret@h:1/v1/chat/completions?k=1")
    assert error.message == "404 not found: HTTP 404 (POST http://***@h:1/v1/chat/completions)"
    assert tried("wss://h/v1/responses") == "GET wss://h/v1/responses"


def test_endpoint_joins_the_path_and_drops_the_query():
    assert endpoint("http://h:1/v1/?key=x", "/chat/completions") == "http://h:1/v1/chat/completions"


def test_http10_status_line():
    assert http10_status("HTTP/1.0 404 Not Found") == 404
    assert http10_status("SSH-2.0-OpenSSH") is None and http10_status(None) is None
