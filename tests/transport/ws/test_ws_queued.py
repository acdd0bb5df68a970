"""Frames already received travel up merged: the text is whole and in place, a burst
becomes fewer deltas, and a websockets without the queue merges nothing."""

from __future__ import annotations

from typing import Any

from spark_cli.protocol.channel import TextDelta, TurnFinished, UsageReported
from spark_cli.transport.ws.ws_links import queued_frames
from tests.transport.ws.test_websocket_channel import (
    Frame,
    channel,
    collect,
    request,
    respond,
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


def test_an_unknown_connection_counts_no_queued_frames() -> None:
    assert queued_frames(object())() == 0

    class Assembler:
        frames = (1, 2)

    class Connection:
        recv_messages = Assembler()

    assert queued_frames(Connection())() == 2
