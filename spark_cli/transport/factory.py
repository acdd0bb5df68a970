"""The one place that builds a concrete channel from a kind and a base URL (the API root,
e.g. ``https://api.openai.com/v1``). Channel modules are imported only for the kind asked."""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlsplit

from spark_cli.protocol.channel import Channel
from spark_cli.protocol.secrets import mask_url
from spark_cli.transport.ws_wire import websocket_url

ChannelKind = Literal["responses_ws", "chat_sse", "responses_sse", "ollama"]
KINDS: tuple[ChannelKind, ...] = ("responses_ws", "chat_sse", "responses_sse", "ollama")


def open_channel(
    kind: ChannelKind, *, base_url: str, api_key: str | None, **options: Any
) -> Channel:
    """A new channel of ``kind`` (``ValueError`` for an unknown kind or a non-http(s) base URL)."""
    if kind == "responses_ws":
        # deferred: launch -> request
        from spark_cli.transport.ws.websocket import ResponsesWebSocketChannel

        return ResponsesWebSocketChannel(websocket_url(base_url), api_key, **options)
    parts = urlsplit(base_url)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise ValueError(f"not an http(s) URL: {mask_url(base_url)!r}")
    if kind == "chat_sse":
        # deferred: launch -> request
        from spark_cli.transport.sse.http_chat import ChatCompletionsChannel

        return ChatCompletionsChannel(base_url, api_key, **options)
    if kind == "responses_sse":
        # deferred: launch -> request
        from spark_cli.transport.sse.http_responses import ResponsesSSEChannel

        return ResponsesSSEChannel(base_url, api_key, **options)
    if kind == "ollama":
        from spark_cli.transport.sse.ollama_chat import OllamaChannel  # deferred: launch -> request

        return OllamaChannel(base_url, api_key, **options)
    raise ValueError(f"unknown channel kind {kind!r}; expected one of {', '.join(KINDS)}")
