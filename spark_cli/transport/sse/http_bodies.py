"""What the HTTP SSE channels POST: the path, the headers and the JSON body of one turn.

Plain functions of a :class:`TurnRequest`, without asyncio, so the head start
(:func:`~spark_cli.transport.sse.http_route.send_ahead`) sends exactly what the channel
(:mod:`http_stream` and its two subclasses) would: the channel compares the bytes
before it adopts a request sent ahead.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from spark_cli.protocol.channel import TurnRequest
from spark_cli.transport.items import chat_messages, chat_tools, responses_item, responses_tools
from spark_cli.transport.sse.http_wire import USER_AGENT

CHAT_PATH = "chat/completions"
RESPONSES_PATH = "responses"


def stream_headers(api_key: str | None, extra_headers: Mapping[str, str] | None) -> dict[str, str]:
    """The headers of a streamed request (the key as a Bearer token)."""
    headers = {"Accept": "text/event-stream", "User-Agent": USER_AGENT, **dict(extra_headers or {})}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    return headers


def chat_body(request: TurnRequest, model: str | None) -> dict[str, Any]:
    """A streamed Chat Completions request (usage included in the stream)."""
    messages: list[dict[str, Any]] = []
    if request.instructions:
        messages.append({"role": "system", "content": request.instructions})
    messages.extend(chat_messages(request.messages))
    body: dict[str, Any] = {
        "model": request.model or model,
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if request.tools:
        body["tools"] = chat_tools(request.tools)
    if request.max_output_tokens is not None:
        body["max_tokens"] = request.max_output_tokens
    return body


def responses_body(request: TurnRequest, model: str | None) -> dict[str, Any]:
    """A streamed Responses request; the whole conversation every turn (``store: false``)."""
    body: dict[str, Any] = {
        "model": request.model or model,
        "input": [responses_item(m) for m in request.messages],
        "stream": True,
        "store": False,
    }
    if request.tools:
        body["tools"] = responses_tools(request.tools)
    if request.instructions:
        body["instructions"] = request.instructions
    if request.max_output_tokens is not None:
        body["max_output_tokens"] = request.max_output_tokens
    return body


def encode(body: Mapping[str, Any]) -> bytes:
    """The body's bytes, as httpx's ``json=`` writes them."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
