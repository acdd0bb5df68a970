"""The Chat Completions wire: request parsing, and chunks the SDK parses."""

from __future__ import annotations

import json

import pytest
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from spark_cli.engine.core.config import MAX_OUTPUT_TOKENS
from spark_cli.engine.wire import chat
from spark_cli.engine.wire.chat import ChatEvents
from spark_cli.engine.wire.responses import REASON_MAX_OUTPUT_TOKENS, InputMessage, WireError


def test_parse_chat() -> None:
    request, include_usage = chat.parse_chat({
        "model": "m", "stream": True, "stream_options": {"include_usage": True},
        "max_completion_tokens": 5,
        "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"}],
    }, MAX_OUTPUT_TOKENS)
    assert include_usage and request.stream and request.max_output_tokens == 5
    assert request.instructions == "sys"
    assert request.input == (InputMessage("user", "hi"),)


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"messages": [{"role": "user", "content": "x"}]}, "model"),
        ({"model": "m"}, "messages"),
        ({"model": "m", "messages": "hi"}, "messages"),
        ({"model": "m", "messages": [{"role": "user", "content": "x"}], "stream": 1}, "stream"),
        ({"model": "m", "messages": [{"role": "user", "content": "x"}], "max_tokens": 0},
         "max_tokens"),
        ({"model": "m", "messages": [{"role": "tool", "content": "x"}]},
         "messages[0].tool_call_id"),
        ({"model": "m", "messages": [{"role": "tool", "tool_call_id": "call_1", "content": "x"}]},
         "messages[0].role"),
    ],
)
def test_parse_chat_errors(body: dict[str, object], param: str) -> None:
    with pytest.raises(WireError) as refused:
        chat.parse_chat(body, MAX_OUTPUT_TOKENS)
    assert refused.value.param == param


def test_chunks_parse_with_the_sdk() -> None:
    events = ChatEvents("chatcmpl_1", "m", include_usage=True)
    chunks = [*events.started(), events.delta('tab\t"q"'),
              *events.finished("x", "incomplete", {"input_tokens": 1, "output_tokens": 1},
                               REASON_MAX_OUTPUT_TOKENS)]
    assert chunks[-1] == ("data", "[DONE]")
    for _kind, text in chunks[:-1]:
        ChatCompletionChunk.model_validate(json.loads(text))
    assert json.loads(chunks[1][1])["choices"][0]["delta"]["content"] == 'tab\t"q"'
    final = ChatCompletion.model_validate(events.final)
    assert final.choices[0].finish_reason == "length" and final.usage is not None
