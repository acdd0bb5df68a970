"""Ollama: Chat Completions on ``/v1`` while a request fits the loaded context, else the native
``/api/chat`` with ``num_ctx`` (``/v1`` ignores it and Ollama drops a long prompt's start);
the native NDJSON lines are rewritten as Chat chunks and folded by :class:`ChatFold`."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from spark_cli.protocol.channel import TurnRequest
from spark_cli.protocol.sse import SSEDecoder, SSEEvent
from spark_cli.transport.bodies import CHAT_PATH, chat_body
from spark_cli.transport.silence import prompt_tokens
from spark_cli.transport.sse.http_chat import ChatCompletionsChannel, ChatFold
from spark_cli.transport.window.answers import OLLAMA_DEFAULT_CTX
from spark_cli.transport.window.probe import server_root

NATIVE_PATH = "api/chat"
STEP = 2_048
"""``num_ctx`` is rounded up to a multiple of this (fewer distinct sizes, fewer reloads)."""


def native_body(request: TurnRequest, model: str | None, num_ctx: int) -> dict[str, Any]:
    """``/api/chat``'s body: arguments as objects, outputs named, ``num_ctx``, ``num_predict``."""
    body = chat_body(request, model)
    del body["stream_options"]
    names: dict[str, str] = {}
    for message in body["messages"]:
        for call in message.get("tool_calls") or ():
            function = call["function"]
            names[call["id"]] = function["name"]
            try:
                function["arguments"] = json.loads(function["arguments"] or "{}")
            except ValueError:
                function["arguments"] = {}
        if message["role"] == "tool":
            message["tool_name"] = names.get(message["tool_call_id"], "")
        if message.get("content") is None:
            message["content"] = ""
    body["options"] = {"num_ctx": num_ctx}
    if "max_tokens" in body:
        body["options"]["num_predict"] = body.pop("max_tokens")
    return body


def as_chat_chunk(line: dict[str, Any], calls: list[int]) -> dict[str, Any]:
    """One native line as the Chat Completions chunk it stands for (``calls``: counted so far)."""
    if "error" in line:
        return {"error": line["error"]}
    message: dict[str, Any] = line["message"] if isinstance(line.get("message"), dict) else {}
    delta: dict[str, Any] = {"content": message.get("content") or ""}
    pieces = []
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        calls[0] += 1
        pieces.append({"index": calls[0] - 1, "id": f"call_{calls[0]}", "type": "function",
                       "function": {"name": function.get("name", ""),
                                    "arguments": json.dumps(function.get("arguments") or {})}})
    if pieces:
        delta["tool_calls"] = pieces
    chunk: dict[str, Any] = {"choices": [{"delta": delta, "finish_reason":
                                          line.get("done_reason") or "stop"
                                          if line.get("done") else None}]}
    if line.get("done"):
        chunk["usage"] = {"prompt_tokens": line.get("prompt_eval_count", 0),
                          "completion_tokens": line.get("eval_count", 0)}
    return chunk


class NativeFold(ChatFold):
    """A ``/api/chat`` stream folded as Chat Completions chunks."""

    __slots__ = ("_made",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._made = [0]

    def feed(self, event: SSEEvent) -> Any:
        try:
            line = json.loads(event.data)
        except ValueError:
            return super().feed(event)  # named as a malformed chunk there
        if type(line) is not dict:
            return super().feed(event)
        return super().feed(SSEEvent(json.dumps(as_chat_chunk(line, self._made))))


def _ndjson_line(line: str) -> SSEEvent | None:
    return SSEEvent(line) if line.strip() else None


class OllamaChannel(ChatCompletionsChannel):
    """``/v1/chat/completions`` within the loaded context, ``/api/chat`` beyond it."""

    def __init__(self, base_url: str, api_key: str | None, *, loaded: int | None = None,
                 window: int | None = None, **options: Any) -> None:
        super().__init__(server_root(base_url), api_key, **options)
        self.loaded = loaded or OLLAMA_DEFAULT_CTX
        self.window = window
        self.native = False

    def num_ctx(self, request: TurnRequest) -> int | None:
        """The context the request needs when that is more than what is loaded, else None."""
        needed = prompt_tokens(request) + (request.max_output_tokens or 0)
        if needed <= self.loaded:
            return None
        wanted = math.ceil(needed / STEP) * STEP
        return min(wanted, self.window) if self.window else wanted

    def _body(self, request: TurnRequest) -> dict[str, Any]:
        num_ctx = self.num_ctx(request)
        self.native = num_ctx is not None
        self.path = NATIVE_PATH if self.native else f"v1/{CHAT_PATH}"  # type: ignore[misc]
        if num_ctx is None:
            return chat_body(request, self._model)
        return native_body(request, self._model, num_ctx)

    def _fold(self, request: TurnRequest) -> ChatFold:
        return (NativeFold if self.native else ChatFold)(self._secrets, tools=bool(request.tools))

    def _decoder(self) -> Callable[[str], SSEEvent | None]:
        return _ndjson_line if self.native else SSEDecoder(comments=True).feed_line
