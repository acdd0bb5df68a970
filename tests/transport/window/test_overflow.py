"""Each server's context-overflow answer is recognised and named with both sizes."""

from __future__ import annotations

import json

import pytest

from spark_cli.protocol.channel import Overflow
from spark_cli.transport.errors import error_from_body
from spark_cli.transport.window.overflow import overflow_message, recognise

# recorded from llama-cpp-python 0.3.36's server here (SmolLM2-135M, --n_ctx 8192), unstreamed
LLAMA_CPP_PYTHON = {"error": {
    "message": "This model's maximum context length is 8192 tokens. However, you requested "
               "18046 tokens (18030 in the messages, 16 in the completion). Please reduce the "
               "length of the messages or completion.",
    "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}
# llama.cpp llama-server (documented shape: tools/server, exceed_context_size_error)
LLAMA_SERVER = {"error": {
    "code": 400, "message": "the request exceeds the available context size, try increasing it",
    "type": "exceed_context_size_error", "n_prompt_tokens": 9510, "n_ctx": 8192}}
VLLM = {"object": "error", "message": "This model's maximum context length is 32768 tokens. "
        "However, you requested 33000 tokens (32000 in the messages, 1000 in the completion). "
        "Please reduce the length of the messages or completion.", "type": "BadRequestError",
        "param": None, "code": 400}
VLLM_MAX_TOKENS = {"error": {"message": "'max_tokens' or 'max_completion_tokens' is too large: "
                   "8192. This model's maximum context length is 8192 tokens and your request "
                   "has 5000 input tokens (8192 > 8192 - 5000).", "type": "BadRequestError",
                   "param": None, "code": 400}}
OLLAMA = {"error": {"message": "the input length exceeds the context length",
                    "type": "invalid_request_error", "param": None, "code": None}}
LM_STUDIO = {"error": "Trying to keep the first 5210 tokens when context the overflows. However, "
             "the model is loaded with context length of only 4096 tokens, which is not enough."}
OPENAI = {"error": {"message": "This model's maximum context length is 128000 tokens. However, "
                    "your messages resulted in 130512 tokens. Please reduce the length of the "
                    "messages.", "type": "invalid_request_error", "param": "messages",
                    "code": "context_length_exceeded"}}
OPENAI_RESPONSES = {"error": {"message": "Your input exceeds the context window of this model. "
                              "Please adjust your input and try again.",
                              "type": "invalid_request_error", "param": "input",
                              "code": "context_length_exceeded"}}


@pytest.mark.parametrize(("body", "requested", "window"), [
    (LLAMA_CPP_PYTHON, 18046, 8192),
    (LLAMA_SERVER, 9510, 8192),
    (VLLM, 33000, 32768),
    (VLLM_MAX_TOKENS, 5000, 8192),
    (OLLAMA, None, None),
    (LM_STUDIO, None, 4096),
    (OPENAI, 130512, 128000),
    (OPENAI_RESPONSES, None, None),
], ids=["llama-cpp-python", "llama-server", "vllm", "vllm-max-tokens", "ollama", "lm-studio",
        "openai-chat", "openai-responses"])
def test_each_servers_overflow_is_a_context_length_error_with_its_figures(
        body: dict[str, object], requested: int | None, window: int | None) -> None:
    error = error_from_body(400, json.dumps(body))
    assert error.kind == "context_length"
    assert not error.retryable
    assert error.overflow == Overflow(requested, window)
    assert error.message.startswith(overflow_message(requested, window))
    assert "larger than the model's window" in error.message


def test_the_message_says_both_sizes() -> None:
    error = error_from_body(400, json.dumps(LLAMA_SERVER))
    assert error.message.startswith(
        "the request (9.5k tokens) is larger than the model's window (8.2k)")
    assert "the server said" in error.message


@pytest.mark.parametrize("body", [
    {"error": {"message": "model 'x' not found", "type": "invalid_request_error"}},
    {"error": {"message": "Invalid value for temperature", "code": "invalid_value"}},
    "Internal Server Error",
])
def test_other_errors_are_not_overflows(body: object) -> None:
    text = body if isinstance(body, str) else json.dumps(body)
    error = error_from_body(400, text)
    assert error.kind != "context_length"
    assert error.overflow is None


def test_a_server_log_line_gives_both_sizes() -> None:
    said = "ValueError: Requested tokens (18030) exceed context window of 8192"
    assert recognise(None, None, said) == Overflow(18030, 8192)


def test_an_estimate_stands_in_for_a_size_the_server_did_not_say() -> None:
    assert overflow_message(None, 8192, estimated=9510) == (
        "the request (about 9.5k tokens) is larger than the model's window (8.2k)")
    assert overflow_message(None, None) == "the request is larger than the model's window"
