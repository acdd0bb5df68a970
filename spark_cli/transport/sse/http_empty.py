"""A 200 stream that ended without a line (llama-cpp-python's overflow): asked again once,
unstreamed for one token, so the server's 400 names both sizes instead of a blind resend."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from spark_cli.protocol.channel import ChannelError
from spark_cli.protocol.secrets import Secrets
from spark_cli.transport import http_wire as wire
from spark_cli.transport.bodies import encode
from spark_cli.transport.errors import error_from_body

EMPTY = "the server ended its stream without a word (HTTP 200, no event)"


def single_token(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` unstreamed, for one token (Chat ``max_tokens``; Responses' least is 16)."""
    asked = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
    asked["stream"] = False
    if "input" in body:
        asked["max_output_tokens"] = 16
    else:
        asked.pop("max_completion_tokens", None)
        asked["max_tokens"] = 1
    return asked


async def why_empty(net: wire.HttpClient, path: str, body: dict[str, Any], *,
                    timeout: float, secrets: Secrets) -> ChannelError:
    """The error an empty 200 stream stands for; a reset first ask is asked again once."""
    answer = None
    for _ in range(2):
        try:
            answer = await _ask(net, path, encode(single_token(body)), timeout)
        except TimeoutError:  # no answer in the prefill's time: asking again will not help
            break
        if answer is not None:
            break
    if answer is None:
        return ChannelError("connection", f"{EMPTY}; asked again without streaming, it did "
                            "not answer either")
    status, raw, headers = answer
    if status >= 400:
        return error_from_body(status, raw, headers=headers, secrets=secrets)
    return ChannelError("connection", f"{EMPTY}, though it answers the same request "
                        "unstreamed", retryable=True)


async def _ask(net: wire.HttpClient, path: str, payload: bytes,
               timeout: float) -> tuple[int, bytes, Mapping[str, str]] | None:
    """Status, body and headers of one unstreamed POST; None when the connection failed."""
    sending = net.post(path, payload)
    response: wire.Response | None = None
    try:
        async with asyncio.timeout(timeout):
            response = await sending.task
            raw = await response.aread()
    except wire.TransportError:
        return None
    finally:
        await sending.settle(response)
    return response.status_code, raw, response.headers
