"""The Chat Completions wire: request parsing and chunk builders (the SDK parses them)."""

from __future__ import annotations

import json

import pytest
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from spark_cli.engine.wire import chat
from spark_cli.engine.wire.responses import InputMessage, WireError


def test_parse_chat() -> None:
    request = chat.parse_chat({
        "model": "m", "stream": True, "stream_options": {"include_usage": True},
        "max_completion_tokens": 5,
        "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"}],
    })
    assert request.include_usage and request.stream and request.max_tokens == 5
    assert request.instructions == "sys"
    assert request.conversation == (InputMessage("user", "hi"),)


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
        chat.parse_chat(body)
    assert refused.value.param == param


def test_chunks_parse_with_the_sdk() -> None:
    builder = chat.ChunkBuilder("chatcmpl_1", "m", 1700000000)
    for text in (builder.role(), builder.delta('tab\t"q"'), builder.finish("stop"),
                 builder.usage(chat.usage_object(1, 2, {"total_time": 0.1}))):
        ChatCompletionChunk.model_validate(json.loads(text))
    assert json.loads(builder.delta('tab\t"q"'))["choices"][0]["delta"]["content"] == 'tab\t"q"'
    ChatCompletion.model_validate(builder.completion("x", "length", chat.usage_object(1, 1)))
