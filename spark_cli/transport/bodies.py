"""What a turn sends on every wire: its items, tools, body and headers (pure functions).

Built without asyncio, so the head start (``fast/http_ahead``) sends exactly what the channel
would; the WebSocket's frame is :func:`~.ws_wire.create_payload`."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from spark_cli.protocol.channel import (
    ConversationItem,
    Message,
    ToolCall,
    ToolOutput,
    ToolSpec,
    TurnRequest,
)

CHAT_PATH = "chat/completions"
RESPONSES_PATH = "responses"
USER_AGENT = "spark"
"""Sent by both HTTP clients and the WebSocket channel unless a header overrides it."""


def responses_item(entry: ConversationItem) -> dict[str, str]:
    """One conversation item as a Responses ``input`` item."""
    if isinstance(entry, Message):
        return {"type": "message", "role": entry.role, "content": entry.content}
    if isinstance(entry, ToolCall):
        return {"type": "function_call", "call_id": entry.call_id, "name": entry.name,
                "arguments": entry.arguments}
    return {"type": "function_call_output", "call_id": entry.call_id, "output": entry.output}


def responses_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """The tools as a Responses ``tools`` field.

    ``strict: false`` is explicit: an omitted one lets the server make the schema strict (every
    property required). A replayed ``function_call`` has no ``id`` (``store: false`` refuses it)."""
    return [{"type": "function", "name": t.name, "description": t.description,
             "parameters": t.parameters, "strict": False} for t in tools]


def chat_messages(items: Sequence[ConversationItem]) -> list[dict[str, Any]]:
    """The conversation as Chat Completions ``messages`` (instructions not included)."""
    out: list[dict[str, Any]] = []
    for entry in items:
        if isinstance(entry, Message):
            out.append({"role": entry.role, "content": entry.content})
        elif isinstance(entry, ToolCall):
            call = {"id": entry.call_id, "type": "function",
                    "function": {"name": entry.name, "arguments": entry.arguments}}
            last = out[-1] if out else None
            if last is not None and last["role"] == "assistant":
                last.setdefault("tool_calls", []).append(call)
            else:
                out.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif isinstance(entry, ToolOutput):
            out.append({"role": "tool", "tool_call_id": entry.call_id, "content": entry.output})
    return out


def chat_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """The tools as a Chat Completions ``tools`` field."""
    return [{"type": "function", "function": {"name": t.name, "description": t.description,
                                              "parameters": t.parameters}} for t in tools]


def key_headers(api_key: str | None, extra_headers: Mapping[str, str] | None) -> dict[str, str]:
    """The caller's headers, then the key as a Bearer token."""
    headers = dict(extra_headers or {})
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    return headers


def stream_headers(api_key: str | None, extra_headers: Mapping[str, str] | None) -> dict[str, str]:
    """The headers of a streamed HTTP request."""
    return {"Accept": "text/event-stream", "User-Agent": USER_AGENT,
            **key_headers(api_key, extra_headers)}


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
    return {**body, **sampling(request)}


def sampling(request: TurnRequest) -> dict[str, Any]:
    """``seed`` and ``temperature`` where the request sets them (both wires take them)."""
    pairs = (("seed", request.seed), ("temperature", request.temperature))
    return {name: value for name, value in pairs if value is not None}


def responses_options(request: TurnRequest) -> dict[str, Any]:
    """The fields of a Responses request that follow its input, on either wire."""
    options: dict[str, Any] = {}
    if request.tools:
        options["tools"] = responses_tools(request.tools)
    if request.instructions:
        options["instructions"] = request.instructions
    if request.max_output_tokens is not None:
        options["max_output_tokens"] = request.max_output_tokens
    return {**options, **sampling(request)}


def responses_body(request: TurnRequest, model: str | None) -> dict[str, Any]:
    """A streamed Responses request; the whole conversation every turn (``store: false``)."""
    return {"model": request.model or model,
            "input": [responses_item(m) for m in request.messages],
            "stream": True, "store": False, **responses_options(request)}


def encode(body: Mapping[str, Any]) -> bytes:
    """The body's bytes, as httpx's ``json=`` writes them."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
