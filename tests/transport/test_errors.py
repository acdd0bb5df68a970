"""Refusals of the ``tools`` field recognised among provider errors (value in, value out)."""

from __future__ import annotations

import pytest

from spark_cli.protocol.secrets import Secrets
from spark_cli.transport.errors import error_from_body, provider_error, rejects_tools


@pytest.mark.parametrize("words", [
    "registry.ollama.ai/library/gemma3:4b does not support tools",
    '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
    "tools param requires --jinja flag",
    "No endpoints found that support tool use.",
    "Unrecognized request argument supplied: tools",
    "Function calling is not enabled for this model",
])
def test_the_words_of_real_servers_are_a_refusal(words: str) -> None:
    assert rejects_tools(400, (words,))


@pytest.mark.parametrize(("status", "words"), [
    (400, "No tool output found for function call call_abc."),
    (400, "Invalid value for 'input'."),
    (500, "registry.ollama.ai/library/x does not support tools"),
    (401, "tools are not allowed for this key"),
])
def test_other_answers_are_not(status: int, words: str) -> None:
    assert not rejects_tools(status, (words,))


def test_only_a_request_that_declared_tools_gets_the_tools_message() -> None:
    error = {"message": "x does not support tools", "type": "invalid_request_error"}
    plain = provider_error(400, error)
    assert plain.code == "invalid_request_error" and "--no-tools" not in plain.message
    mapped = provider_error(400, error, tools=True)
    assert (mapped.kind, mapped.code, mapped.retryable) == ("bad_request", "tools_unsupported",
                                                            False)
    assert mapped.message == (
        "400 request rejected (tools_unsupported): the model or server does not accept tools "
        "(x does not support tools); run with --no-tools (or set tools = false in the config)")


def test_a_body_that_names_tools_only_outside_message_is_read_whole_and_masked() -> None:
    body = '{"detail":[{"loc":["body","tools"],"msg":"extra fields not permitted sk-live-123"}]}'
    error = error_from_body(422, body, tools=True, secrets=Secrets(("sk-live-123",)))
    assert error.code == "tools_unsupported" and "sk-live-123" not in error.message
    assert error_from_body(422, body).code != "tools_unsupported"
