"""The WebSocket adopter: the connection :mod:`.ws_ahead` opened, as an asyncio
``ClientConnection``. Saving: :mod:`.ws_ahead`'s."""

from __future__ import annotations

import asyncio

from websockets.asyncio.client import ClientConnection
from websockets.frames import Frame

from spark_cli.transport.fast.ws_ahead import WsAhead
from spark_cli.transport.ws_wire import CLOSE_TIMEOUT


class _Adopted(ClientConnection):
    """A ClientConnection whose handshake happened before it existed."""

    def __init__(self, ahead: WsAhead) -> None:
        assert ahead.protocol is not None
        super().__init__(ahead.protocol, close_timeout=CLOSE_TIMEOUT)
        # What ClientConnection.handshake() sets once the 101 is in (public attributes).
        self.request = ahead.request
        self.response = ahead.response
        self.response_rcvd.set_result(None)
        self._early: list[Frame] = ahead.early

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # makes the message assembler
        early, self._early = self._early, []
        for frame in early:  # before the loop's first read of the socket
            self.process_event(frame)


async def adopt(ahead: WsAhead) -> ClientConnection:
    """The open connection in ``ahead``, left as websockets' ``connect`` leaves one.

    Frames that came with the 101 are handed over before any byte the loop reads."""
    sock, ahead.sock = ahead.sock, None
    assert sock is not None
    loop = asyncio.get_running_loop()
    try:
        assert ahead.protocol is not None  # made now after a plain 101; raises if it fails
        _, connection = await loop.create_connection(lambda: _Adopted(ahead), sock=sock)
    except BaseException:
        sock.close()
        raise
    connection.start_keepalive()
    return connection
