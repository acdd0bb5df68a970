"""Text from outside on every channel, over real loopback sockets: a 401 quoting keys
(every key spark knows is masked, not only the one sent) and a server that does not
speak HTTP (said plainly, with what it sent, never retried)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from spark_cli.protocol.channel import ChannelError, Message, TurnRequest, WaitingToRetry
from spark_cli.protocol.secrets import Secrets
from spark_cli.transport.errors import masked, non_http_answer, not_http_error
from spark_cli.transport.factory import open_channel

IN_USE = "sk-other-0123456789abcdefghij"
NOT_SENT = "sk-test-ZYXWVUTSRQPONMLKJIHG"
KINDS = ("responses_ws", "chat_sse", "responses_sse")
REQUEST = TurnRequest("m", (Message("user", "hi"),))


@asynccontextmanager
async def raw_server(answer: bytes) -> AsyncIterator[tuple[str, list[int]]]:
    """A TCP server on 127.0.0.1:0 that reads the request head, writes ``answer``, closes."""
    accepted: list[int] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(1)
        try:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(answer)
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        yield f"http://127.0.0.1:{port}/v1", accepted


def http_401(body: dict[str, Any]) -> bytes:
    data = json.dumps(body).encode()
    return (b"HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\n"
            b"content-length: " + str(len(data)).encode() + b"\r\nconnection: close\r\n\r\n"
            + data)


async def failure(kind: str, base_url: str, **options: Any) -> tuple[ChannelError, list[Any]]:
    channel = open_channel(kind, base_url=base_url, api_key=IN_USE, idle_timeout=3.0, **options)
    events: list[Any] = []
    try:
        async with asyncio.timeout(15):
            with pytest.raises(ChannelError) as info:
                async for event in channel.stream(REQUEST):
                    events.append(event)
    finally:
        await channel.aclose()
    return info.value, events


@pytest.mark.parametrize("kind", KINDS)
async def test_a_401_quoting_every_key_shows_none_of_them(kind: str) -> None:
    quoted = (f"Incorrect API key provided: {IN_USE}. Also seen: {NOT_SENT}; "
              f"ends in {NOT_SENT[-8:]}")
    body = {"error": {"message": quoted, "type": "invalid_request_error",
                      "code": "invalid_api_key"}}
    async with raw_server(http_401(body)) as (url, _):
        error, _events = await failure(kind, url, secrets=(NOT_SENT,))
    assert error.kind == "auth"
    assert "Incorrect API key provided: ***" in error.message
    for secret in (IN_USE, NOT_SENT, NOT_SENT[-8:], IN_USE[-8:]):
        assert secret not in error.message and secret not in str(error)


@pytest.mark.parametrize("kind", KINDS)
async def test_a_server_that_does_not_speak_http_is_named_plainly_and_not_retried(
    kind: str,
) -> None:
    banner = f"SSH-2.0-OpenSSH_9.6 {NOT_SENT}\r\n\r\n".encode()
    async with raw_server(banner) as (url, accepted):
        error, events = await failure(kind, url, secrets=(NOT_SENT,))
    assert error.kind == "protocol" and not error.retryable
    assert "did not speak HTTP (it sent 'SSH-2.0-OpenSSH_9.6 ***')" in error.message
    assert "bytearray" not in error.message and "illegal status line" not in error.message
    assert not [e for e in events if isinstance(e, WaitingToRetry)]
    assert len(accepted) == 1


def test_non_http_answer_reads_both_libraries_words() -> None:
    h11 = ValueError("illegal status line: bytearray(b'SSH-2.0-OpenSSH\\xff')")
    assert non_http_answer(h11) == "SSH-2.0-OpenSSH\ufffd"
    ws = RuntimeError("did not receive a valid HTTP response")
    ws.__cause__ = ValueError("invalid HTTP status line: +OK POP3 ready")
    assert non_http_answer(ws) == "+OK POP3 ready"
    assert non_http_answer(ValueError("Server disconnected without sending a response.")) is None


def test_what_a_non_http_server_sent_is_short_printable_and_masked() -> None:
    error = not_http_error("http://u:pw12345@h:22/v1", "\x00\x1b[2J" + "x" * 200 + NOT_SENT,
                           Secrets([NOT_SENT]))
    assert "pw12345" not in error.message and "\x1b" not in error.message
    assert "'[2J" + "x" * 57 + "…'" in error.message  # 60 characters shown


def test_masked_rewrites_message_and_args_in_place() -> None:
    error = ChannelError("auth", f"refused {NOT_SENT}")
    assert masked(error, Secrets([NOT_SENT])) is error
    assert error.message == "refused ***" and str(error) == "refused ***"
