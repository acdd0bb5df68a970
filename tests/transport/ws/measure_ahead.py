"""The head start end to end, for callgrind (not a test: run it by hand).

    python tests/transport/ws/measure_ahead.py MODE URL [TOKEN]

URL is the engine's WebSocket URL (``ws://127.0.0.1:PORT/v1/responses``). Modes:

- ``ahead``: ``send_ahead`` first thing in a fresh interpreter; prints when the frame
  was written and exits (``os._exit``): the instructions before the request leaves.
- ``today``: ``import asyncio``, the channel as ``open_channel`` builds it, one
  ``stream()`` until its ``RequestSent``; prints its time and exits there: today's
  path, to compare.
- ``adopted``: ``send_ahead``, then asyncio and the channel adopting the socket, the
  whole turn; prints the time the frame left after launch, whether asyncio was imported
  by then, and the answer's size (checks the head start end to end).
"""

from __future__ import annotations

import os
import sys
import time

START = time.perf_counter()


def main() -> None:
    mode, url = sys.argv[1], sys.argv[2]
    token = sys.argv[3] if len(sys.argv) > 3 else None
    from spark_cli.protocol.channel import Message, TurnRequest

    request = TurnRequest("spark-test", (Message("user", "say something"),),
                          max_output_tokens=50)
    if mode == "today":
        _today(url, token, request)
        return
    from spark_cli.transport.ws.ws_ahead import send_ahead

    ahead = send_ahead(url, token, request, connect_timeout=5.0)
    if mode == "ahead":
        _stamp(ahead.at if ahead is not None else None)
    asyncio_then = "asyncio" in sys.modules
    import asyncio

    from spark_cli.protocol.channel import TextDelta, TurnFinished
    from spark_cli.transport.ws.websocket import ResponsesWebSocketChannel

    async def turn() -> None:
        channel = ResponsesWebSocketChannel(url, token, warm_spare=False, ahead=ahead)
        chars, finished = 0, None
        async for event in channel.stream(request):
            if type(event) is TextDelta:
                chars += len(event.text)
            elif type(event) is TurnFinished:
                finished = event.status
        await channel.aclose()
        sent = ahead.at - START if ahead is not None and ahead.at is not None else None
        print(f"sent after {sent:.4f}s, asyncio imported by then: {asyncio_then}, "
              f"{chars} chars, {finished}, {channel.handshakes} handshake(s)")

    asyncio.run(turn())


def _today(url: str, token: str | None, request: object) -> None:
    import asyncio

    from spark_cli.protocol.channel import RequestSent
    from spark_cli.transport.factory import open_channel

    async def first_send() -> None:
        channel = open_channel("responses_ws", base_url=url, api_key=token, warm_spare=False)
        async for event in channel.stream(request):  # type: ignore[arg-type]
            if type(event) is RequestSent:
                _stamp(event.at)

    asyncio.run(first_send())


def _stamp(at: float | None) -> None:
    """Print when the frame left (``time.perf_counter()``: CLOCK_MONOTONIC, as the
    parent's ``time.monotonic()``) and exit at once."""
    os.write(1, f"{at}\n".encode())
    os._exit(0 if at is not None else 1)


if __name__ == "__main__":
    main()
