"""The opening handshake of a connection opened ahead, without websockets' ``ClientProtocol``.

``websockets.client`` and ``websockets.protocol`` (with logging, uuid, platform) would load
before a one-shot's frame could leave. :class:`Opening` does the handshake with websockets'
lower pieces: ``http11.Request`` with exactly the headers ``ClientProtocol.connect`` writes,
the answer parsed by ``http11.Response.parse``, and :meth:`Opening.accepted` says whether it
is a 101 that ``ClientProtocol`` surely accepts with nothing after it. Every other outcome
is left to ``ClientProtocol``: :meth:`Opening.protocol` builds it with the key sent and
feeds it every byte received, so it ends as the protocol that sent the request would have.
A connection adopted later gets its protocol the same way.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import TYPE_CHECKING

from websockets.datastructures import Headers
from websockets.exceptions import InvalidMessage
from websockets.frames import Frame, Opcode
from websockets.http11 import Request, Response
from websockets.streams import StreamReader
from websockets.utils import accept_key, generate_key

from spark_cli.transport.bodies import USER_AGENT
from spark_cli.transport.ws.ws_wire import MAX_FRAME, handshake_logger

if TYPE_CHECKING:
    from websockets.client import ClientProtocol
    from websockets.uri import WebSocketURI


def host_header(host: str, port: int, secure: bool) -> str:
    """``Host`` as ``websockets.headers.build_host`` writes it. Only a host with a colon can
    be an IPv6 address (``ipaddress`` splits on ``:`` and wants 3 parts at least), so only
    such a host pays for ``websockets.headers`` and ``ipaddress``."""
    if ":" in host:
        from websockets.headers import build_host  # deferred: launch -> request

        return build_host(host, port, secure)
    return host if port == (443 if secure else 80) else f"{host}:{port}"


def opening_request(uri: WebSocketURI, key: str, headers: Mapping[str, str]) -> Request:
    """The request ``ClientProtocol(uri).connect()`` makes with ``key`` (no origin, no
    extensions, no subprotocols: the channel offers none), ``headers`` added, then the
    channel's ``User-Agent`` unless ``headers`` has one."""
    fields = Headers()
    fields["Host"] = host_header(uri.host, uri.port, uri.secure)
    if uri.user_info:
        from websockets.headers import build_authorization_basic  # deferred: launch -> request

        fields["Authorization"] = build_authorization_basic(*uri.user_info)
    fields["Upgrade"] = "websocket"
    fields["Connection"] = "Upgrade"
    fields["Sec-WebSocket-Key"] = key
    fields["Sec-WebSocket-Version"] = "13"
    request = Request(uri.resource_name, fields)
    request.headers.update(headers)
    request.headers.setdefault("User-Agent", USER_AGENT)
    return request


def text_frame(payload: str) -> bytes:
    """``payload`` as a client's text frame, as ``ClientProtocol.send_text`` writes it on a
    connection without extensions (masked, one frame)."""
    return Frame(Opcode.TEXT, payload.encode()).serialize(mask=True, extensions=[])


class Opening:
    """One opening handshake: the request to write, then the bytes read until the response
    is parsed or cannot be (see the module doc)."""

    def __init__(self, uri: WebSocketURI, headers: Mapping[str, str]) -> None:
        self.uri = uri
        self.key = generate_key()
        self.request = opening_request(uri, self.key, headers)
        self.received = bytearray()
        """Every byte read from the server so far."""
        self.eof = False
        """The server's end of stream was read (or the connection was lost)."""
        self.response: Response | None = None
        self.failed = False
        """The parser gave up (bytes that are not a response, or too few of them)."""
        self._reader = StreamReader()
        self._parser: Generator[None, None, Response] = Response.parse(
            self._reader.read_line, self._reader.read_exact, self._reader.read_to_eof)

    @property
    def done(self) -> bool:
        """Nothing more to read: a response, or a failure for ``ClientProtocol`` to name."""
        return self.response is not None or self.failed

    def feed(self, data: bytes) -> None:
        """Take the next bytes read (``b""``: the end of stream) and parse what can be."""
        if self.done:
            return
        if data:
            self.received += data
            self._reader.feed_data(data)
        else:
            self.eof = True
            self._reader.feed_eof()
        try:
            next(self._parser)
        except StopIteration as finished:
            self.response = finished.value
        except Exception:  # ClientProtocol names it, from the same bytes
            self.failed = True

    def accepted(self) -> bool:
        """A 101 ``ClientProtocol.process_response`` accepts for sure, and nothing after it:
        ``Upgrade: websocket``, ``Connection: upgrade`` (one value each, any case), the
        right ``Sec-WebSocket-Accept``, no extension nor subprotocol header (we offer
        none). Anything else is for ``ClientProtocol`` to judge."""
        response = self.response
        if response is None or response.status_code != 101 or self._reader.buffer or self.eof:
            return False
        headers = response.headers
        try:
            return (headers["Upgrade"].lower() == "websocket"
                    and headers["Connection"].lower() == "upgrade"
                    and headers["Sec-WebSocket-Accept"] == accept_key(self.key)
                    and "Sec-WebSocket-Extensions" not in headers
                    and "Sec-WebSocket-Protocol" not in headers)
        except LookupError:  # missing, or given twice
            return False

    def protocol(self) -> ClientProtocol:
        """websockets' ``ClientProtocol`` for this handshake, as if it had sent the request
        and received every byte read so far (and the end of stream, if read)."""
        from websockets.client import ClientProtocol  # deferred: launch -> request

        protocol = ClientProtocol(self.uri, max_size=MAX_FRAME, logger=handshake_logger())
        protocol.key = self.key  # the request is out already: not sent again
        if self.received:
            protocol.receive_data(bytes(self.received))
        if self.eof:
            protocol.receive_eof()
        return protocol

    def adopted(self) -> tuple[ClientProtocol, list[Frame]]:
        """The protocol of an :meth:`accepted` handshake, OPEN, and the frames that came
        after the 101 (none: :meth:`accepted` wants none). Raises what ``ClientProtocol``
        finds wrong, which an accepted handshake never has."""
        from websockets.protocol import State  # deferred: launch -> request

        protocol = self.protocol()
        if protocol.handshake_exc is not None:
            raise protocol.handshake_exc
        events = protocol.events_received()
        if protocol.state is not State.OPEN or not events or not isinstance(events[0], Response):
            raise InvalidMessage("the opening handshake did not replay")
        return protocol, [event for event in events[1:] if isinstance(event, Frame)]
