"""Deltas that arrive together travel up as one: every event a read brings, merged text
and all, comes out in the order it was sent (the lean client joins every chunk already
received, and its reader gathers between reads; httpx hands up a piece at a time, unpaced)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from spark_cli.protocol.channel import (
    ChannelEvent,
    RequestSent,
    ResponseStarted,
    TextDelta,
)
from spark_cli.transport.fast import on
from spark_cli.transport.sse import http_stream
from spark_cli.transport.sse.http_chat import ChatCompletionsChannel
from tests.transport.sse.test_http_chat_channel import REQUEST, chunk, collect, sse


def _call(content: str) -> str:
    piece = {"index": 0, "id": "call_1", "type": "function",
             "function": {"name": "read_file", "arguments": '{"path": "a.py"}'}}
    return json.dumps({"id": "chatcmpl-1", "object": "chat.completion.chunk",
                       "choices": [{"index": 0, "delta": {"content": content,
                                                          "tool_calls": [piece]},
                                    "finish_reason": None}]})


BODY = sse(chunk("", role="assistant"), chunk("a"), chunk("b"), _call("c"), chunk("d"),
           chunk("e"), chunk(None, "tool_calls"),
           json.dumps({"id": "chatcmpl-1", "choices": [],
                       "usage": {"prompt_tokens": 3, "completion_tokens": 5}}))


def _joined(events: list[ChannelEvent]) -> list[object]:
    """The events with consecutive text joined and timestamps dropped."""
    out: list[object] = []
    for event in events:
        if type(event) is RequestSent:
            continue
        if type(event) is ResponseStarted:
            out.append("started")
        elif type(event) is TextDelta and out and type(out[-1]) is TextDelta:
            out[-1] = TextDelta(out[-1].text + event.text)
        else:
            out.append(event)
    return out


def _one_chunk_app() -> Any:
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        while (await receive()).get("more_body"):
            pass
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/event-stream")]})
        await send({"type": "http.response.body", "body": BODY, "more_body": False})

    return app


def _httpx(*pieces: bytes) -> ChatCompletionsChannel:
    """A channel on httpx whose response body arrives in these pieces."""
    async def body() -> Any:
        for piece in pieces:
            yield piece

    return ChatCompletionsChannel("https://api.example.test/v1", "k", transport=httpx.MockTransport(
        lambda request: httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=body())))


async def _per_event() -> list[ChannelEvent]:
    """The reference: each SSE event a piece of its own, so each delta goes up alone."""
    pieces = [event + b"\n\n" for event in BODY.split(b"\n\n")[:-1]]
    return await collect(_httpx(*pieces), REQUEST)


async def test_httpx_hands_up_the_events_of_one_piece_together_in_order() -> None:
    one_by_one = await _per_event()
    together = await collect(_httpx(BODY), REQUEST)
    assert _joined(together) == _joined(one_by_one)
    assert [e.text for e in together if type(e) is TextDelta] == ["abc", "de"]
    assert [e.text for e in one_by_one if type(e) is TextDelta] == list("abcde")


@pytest.mark.skipif(not on("h11"), reason="SPARK_PLAIN: the lean h11 client is off")
async def test_a_chunk_of_events_keeps_their_order_with_its_text_merged(
        http_server: Any) -> None:
    one_by_one = await _per_event()
    async with http_server(_one_chunk_app()) as base:
        lean = ChatCompletionsChannel(base, None)
        together = await collect(lean, REQUEST)
        await lean.aclose()
    assert _joined(together) == _joined(one_by_one)
    texts = [e.text for e in together if type(e) is TextDelta]
    assert texts == ["abc", "de"]  # "c" came with the call: the call follows it


def _paced_app(pieces: list[bytes]) -> Any:
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        while (await receive()).get("more_body"):
            pass
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/event-stream")]})
        for piece in pieces:  # 20 ms apart: each would travel alone
            await send({"type": "http.response.body", "body": piece, "more_body": True})
            await asyncio.sleep(0.02)
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


@pytest.mark.skipif(not on("h11"), reason="SPARK_PLAIN: the lean h11 client is off")
async def test_chunks_that_come_while_the_reader_gathers_go_up_as_one(
        http_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http_stream, "GATHER_S", 1.0)  # wide, so a loaded machine cannot split it
    pieces = [sse(chunk(f"w{n} "), done=False) for n in range(6)] + [sse(chunk(None, "stop"))]
    async with http_server(_paced_app(pieces)) as base:
        lean = ChatCompletionsChannel(base, None)
        events = await collect(lean, REQUEST)
        await lean.aclose()
    texts = [e.text for e in events if type(e) is TextDelta]
    assert "".join(texts) == "w0 w1 w2 w3 w4 w5 "
    assert len(texts) <= 2  # the first at once, the rest gathered while the reader slept


async def test_httpx_one_chunk_a_piece_is_never_paced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http_stream, "GATHER_S", 30.0)  # paced, this would outlast collect's 10 s
    events = await _per_event()
    assert [e.text for e in events if type(e) is TextDelta] == list("abcde")
