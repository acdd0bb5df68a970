"""The OpenAI Chat Completions wire as the bundled engine speaks it: pure data, no I/O.

Request parsing (``messages``, ``model``, ``stream``,
``stream_options.include_usage``, ``max_tokens`` / ``max_completion_tokens``)
and the builders of ``chat.completion.chunk`` / ``chat.completion`` objects.
The usage chunk may carry Cerebras-style ``time_info``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from spark_cli.protocol.responses import (
    INVALID_TYPE,
    MISSING_REQUIRED_PARAMETER,
    InputMessage,
    WireError,
    parse_input,
)

DONE = "[DONE]"
FINISH_STOP = "stop"
FINISH_LENGTH = "length"


@dataclass(frozen=True, slots=True)
class ChatRequest:
    model: str
    messages: tuple[InputMessage, ...]
    stream: bool = False
    include_usage: bool = False
    max_tokens: int | None = None

    @property
    def instructions(self) -> str:
        """System/developer messages joined (how the brains read them)."""
        return "\n\n".join(m.text for m in self.messages if m.role in ("system", "developer"))

    @property
    def conversation(self) -> tuple[InputMessage, ...]:
        return tuple(m for m in self.messages if m.role not in ("system", "developer"))


def _bad(param: str, message: str, code: str = INVALID_TYPE) -> WireError:
    return WireError(400, code, message, param)


def parse_chat(obj: dict[str, Any]) -> ChatRequest:
    """Validate a ``POST /v1/chat/completions`` body (raises :class:`WireError`)."""
    model = obj.get("model")
    if model is None:
        raise _bad("model", "'model' is required", MISSING_REQUIRED_PARAMETER)
    if not isinstance(model, str) or not model:
        raise _bad("model", "'model' must be a non-empty string")
    if "messages" not in obj:
        raise _bad("messages", "'messages' is required", MISSING_REQUIRED_PARAMETER)
    raw = obj["messages"]
    if not isinstance(raw, list) or not raw:
        raise _bad("messages", "'messages' must be a non-empty list", "invalid_value")
    messages = parse_input(raw, "messages")
    stream = obj.get("stream", False)
    if not isinstance(stream, bool):
        raise _bad("stream", "'stream' must be a boolean")
    options = obj.get("stream_options") or {}
    if not isinstance(options, dict):
        raise _bad("stream_options", "'stream_options' must be an object")
    limit = obj.get("max_completion_tokens", obj.get("max_tokens"))
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise _bad("max_tokens", "'max_tokens' must be an integer >= 1", "invalid_value")
    return ChatRequest(
        model=model, messages=messages, stream=stream,
        include_usage=bool(options.get("include_usage")), max_tokens=limit,
    )


def usage_object(
    prompt_tokens: int, completion_tokens: int, time_info: dict[str, float] | None = None
) -> dict[str, Any]:
    usage: dict[str, Any] = {
        "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }
    if time_info is not None:
        usage["time_info"] = time_info
    return usage


class ChunkBuilder:
    """The chunks of one streamed completion; ``delta`` uses a preformatted template."""

    __slots__ = ("_head", "_tail", "created", "id", "model")

    def __init__(self, completion_id: str, model: str, created: int) -> None:
        self.id = completion_id
        self.model = model
        self.created = created
        self._head = (
            '{"id":"' + completion_id + '","object":"chat.completion.chunk","created":'
            + str(created) + ',"model":' + json.dumps(model)
            + ',"choices":[{"index":0,"delta":{"content":'
        )
        self._tail = '},"logprobs":null,"finish_reason":null}]}'

    def _chunk(self, choices: list[dict[str, Any]], **extra: Any) -> str:
        body = {"id": self.id, "object": "chat.completion.chunk", "created": self.created,
                "model": self.model, "choices": choices, **extra}
        return json.dumps(body)

    def role(self) -> str:
        return self._chunk([{"index": 0, "delta": {"role": "assistant", "content": ""},
                             "logprobs": None, "finish_reason": None}])

    def delta(self, text: str) -> str:
        return self._head + json.dumps(text) + self._tail

    def finish(self, reason: str) -> str:
        return self._chunk([{"index": 0, "delta": {}, "logprobs": None, "finish_reason": reason}])

    def usage(self, usage: dict[str, Any]) -> str:
        return self._chunk([], usage=usage)

    def completion(self, text: str, reason: str, usage: dict[str, Any]) -> dict[str, Any]:
        """The non-streamed ``chat.completion`` object."""
        return {
            "id": self.id, "object": "chat.completion", "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "logprobs": None, "finish_reason": reason}],
            "usage": usage,
        }


def error_chunk(error: WireError) -> str:
    """An error in the middle of a stream, as OpenAI-compatible servers send it."""
    return json.dumps({"error": error.body()})
