"""Frames already received travel up merged: the text is whole and in place, a burst becomes
fewer deltas, tokens that come while the reader gathers go up together, a queued message is
read untimed, a message whose end has not come is timed, and a websockets without the queue
merges nothing."""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

import pytest

from spark_cli.protocol.channel import ChannelError, TextDelta, TurnFinished, UsageReported
from spark_cli.transport.ws import websocket
from spark_cli.transport.ws.ws_links import message_ready
from tests.transport.ws.test_websocket_channel import (
    Frame,
    channel,
    collect,
    request,
    respond,
    send,
)

PIECES = [f"t{n} " for n in range(300)]


async def burst(ws: Any, number: int, frame: Frame, state: Any) -> None:
    if frame["type"] == "response.create":
        await respond(ws, "resp_1", PIECES)


async def test_a_burst_arrives_whole_in_fewer_deltas_before_the_usage(ws_server: Any) -> None:
    async with ws_server(burst) as srv:
        ch = channel(srv.url, warm_spare=False)
        events = await collect(ch, request("hi"))
        await ch.aclose()
    deltas = [e for e in events if type(e) is TextDelta]
    assert "".join(d.text for d in deltas) == "".join(PIECES)
    assert len(deltas) < len(PIECES)  # a read brings many frames: they went up together
    last_text = max(i for i, e in enumerate(events) if type(e) is TextDelta)
    assert type(events[last_text + 1]) is UsageReported
    assert type(events[-1]) is TurnFinished


async def test_tokens_that_come_while_the_reader_gathers_go_up_as_one(
        ws_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(websocket, "GATHER_S", 1.0)  # wide, so a loaded machine cannot split it

    async def paced(ws: Any, number: int, frame: Frame, state: Any) -> None:
        await send(ws, {"type": "response.created", "response": {"id": "r1"}})
        for n in range(6):  # one token a message, 20 ms apart: each would travel alone
            await send(ws, {"type": "response.output_text.delta", "delta": f"w{n} "})
            await asyncio.sleep(0.02)
        await send(ws, {"type": "response.completed",
                        "response": {"id": "r1", "status": "completed"}})

    async with ws_server(paced) as srv:
        ch = channel(srv.url, warm_spare=False)
        events = await collect(ch, request("hi"))
        await ch.aclose()
    deltas = [e.text for e in events if type(e) is TextDelta]
    assert "".join(deltas) == "w0 w1 w2 w3 w4 w5 "
    assert len(deltas) <= 2  # the first at once, the rest gathered while the reader slept
    assert type(events[-1]) is TurnFinished


async def test_a_queued_message_is_read_without_a_timer(ws_server: Any,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    timed: list[float] = []
    quiet_for = websocket.quiet_for

    def counted(since: float, limit: float) -> Any:
        timed.append(limit)
        return quiet_for(since, limit)

    monkeypatch.setattr(websocket, "quiet_for", counted)
    async with ws_server(burst) as srv:
        ch = channel(srv.url, warm_spare=False)
        events = await collect(ch, request("hi"))
        await ch.aclose()
    assert type(events[-1]) is TurnFinished
    assert len(timed) < len(PIECES) // 2  # only a recv() that may wait is timed


async def test_a_message_whose_end_has_not_come_is_still_timed(ws_server: Any) -> None:
    async def stall(ws: Any, number: int, frame: Any, state: Any) -> None:
        async def pieces() -> Any:
            yield '{"type":"response.output_text.delta",'
            await asyncio.sleep(30)  # the rest of the message never comes in time
            yield '"delta":"y"}'

        await ws.send('{"type":"response.created","response":{"id":"r1"}}')
        await ws.send('{"type":"response.output_text.delta","delta":"x"}')  # no resend now
        await ws.send(pieces())

    async with ws_server(stall) as srv:
        ch = channel(srv.url, idle_timeout=0.3, warm_spare=False)
        with pytest.raises(ChannelError) as info:
            await collect(ch, request("hi"))
        await ch.aclose()
    assert info.value.kind == "timeout"


def test_a_message_is_ready_only_once_its_last_frame_is_held() -> None:
    assert message_ready(object()) is None  # an unknown connection: read one by one, unpaced

    class Frame:
        def __init__(self, fin: bool) -> None:
            self.fin = fin

    class Queue:
        def __init__(self) -> None:
            self.queue = deque([Frame(True), Frame(False)])

    frames = Queue()

    class Assembler:
        pass

    Assembler.frames = frames  # type: ignore[attr-defined]

    class Connection:
        recv_messages = Assembler()

    ready = message_ready(Connection())
    assert ready is not None
    assert ready() is False  # the last message's end has not come
    frames.queue.append(Frame(True))
    assert ready() is True
    frames.queue.clear()
    assert ready() is False
