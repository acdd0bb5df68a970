"""A turn's ``response.create`` sent on a blocking socket before asyncio is imported (``ws://``
only; importing this and calling :func:`send_ws` never imports asyncio).

Its saving: docs/benchmarks.md ``## Ledger`` (``head_start``); paired: `spark bench oneshot
--no-docs` with and without ``SPARK_PLAIN=head_start``."""

from __future__ import annotations

import select
import socket
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from spark_cli.protocol.channel import TurnRequest
from spark_cli.transport.bodies import USER_AGENT, key_headers
from spark_cli.transport.ws_wire import MAX_FRAME, REDIRECTS, create_payload, handshake_logger

if TYPE_CHECKING:
    from websockets.client import ClientProtocol
    from websockets.frames import Frame
    from websockets.http11 import Request, Response

_READ = 65536


class WsAhead:
    """What :func:`send_ws` did: a connection to adopt, an error to raise, or neither."""

    __slots__ = ("at", "early", "error", "payload", "protocol", "request", "response", "sock",
                 "url")

    def __init__(self, url: str) -> None:
        self.url = url
        self.sock: socket.socket | None = None
        self.protocol: ClientProtocol | None = None
        """websockets' sans-I/O state of the connection (OPEN, or CLOSING after a close)."""
        self.request: Request | None = None
        self.response: Response | None = None
        """The handshake's request and 101 (its headers list the engine's extensions)."""
        self.early: list[Frame] = []
        """Frames that arrived with the 101 (parsed already): the connection gets them first."""
        self.payload: str | None = None
        self.at: float | None = None
        self.error: Exception | None = None
        """What websockets' ``connect`` would have raised; the first connect raises it."""

    @property
    def open(self) -> bool:
        """A connection is here to adopt."""
        return self.sock is not None and self.protocol is not None

    def close(self) -> None:
        """Close the socket (idempotent); the server ends whatever it was answering."""
        sock, self.sock = self.sock, None
        if sock is not None:
            sock.close()


def send_ws(
    url: str,
    api_key: str | None,
    request: TurnRequest,
    *,
    extra_headers: Mapping[str, str] | None = None,
    connect_timeout: float,
) -> WsAhead | None:
    """Connect, handshake and send ``request``'s frame, blocking; None for a non-``ws://`` URL.

    Never raises: a failure ``connect`` would raise is kept in ``error`` and raised by the
    channel's first connect; any other failure leaves the channel to connect on its own."""
    if url[:5].lower() != "ws://":
        return None
    ahead = WsAhead(url)
    try:
        _open(ahead, key_headers(api_key, extra_headers), time.monotonic() + connect_timeout)
    except Exception as exc:  # a failure is recorded or left to the channel
        ahead.close()
        ahead.error = _as_connect_error(exc)
        return ahead
    except BaseException:
        ahead.close()
        raise
    _send(ahead, create_payload(request, None), connect_timeout)
    return ahead


def _open(ahead: WsAhead, headers: dict[str, str], deadline: float) -> None:
    """The TCP connect and the opening handshake, as websockets' ``connect`` does them."""
    # deferred: launch -> request
    from websockets.client import ClientProtocol
    from websockets.frames import Frame
    from websockets.http11 import Response
    from websockets.uri import parse_uri

    uri = parse_uri(ahead.url)
    protocol = ClientProtocol(uri, max_size=MAX_FRAME, logger=handshake_logger())
    request = ahead.request = protocol.connect()
    request.headers.update(headers)
    request.headers.setdefault("User-Agent", USER_AGENT)
    sock = ahead.sock = _connect(uri.host, uri.port, deadline)
    protocol.send_request(request)
    _flush(sock, protocol, deadline)
    events = protocol.events_received()
    while not events and protocol.handshake_exc is None:
        _receive(sock, protocol, deadline)
        events = protocol.events_received()
    if protocol.handshake_exc is not None:
        raise protocol.handshake_exc
    response, *early = events
    assert isinstance(response, Response)
    _flush(sock, protocol, deadline)  # e.g. the answer to a close frame that came along
    ahead.protocol, ahead.response = protocol, response
    ahead.early = [event for event in early if isinstance(event, Frame)]  # all are, after the 101


def _send(ahead: WsAhead, payload: str, timeout: float) -> None:
    """Write the frame; a connection the server already closes is handed over unsent."""
    from websockets.protocol import State  # deferred: launch -> request

    protocol, sock = ahead.protocol, ahead.sock
    assert sock is not None and protocol is not None
    if protocol.state is not State.OPEN:
        return
    try:
        protocol.send_text(payload.encode())
        sock.settimeout(max(timeout, 1e-3))
        for chunk in protocol.data_to_send():
            sock.sendall(chunk)
    except Exception:  # part of a frame may be out: start afresh
        ahead.close()
        ahead.protocol = None
        return
    ahead.at = time.perf_counter()
    ahead.payload = payload


def _connect(host: str, port: int, deadline: float) -> socket.socket:
    """A connected TCP socket, failing with the words of asyncio's ``loop.create_connection``."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    if not infos:
        raise OSError("getaddrinfo() returned empty list")
    errors: list[OSError] = []
    for family, kind, proto, _, address in infos:
        sock = socket.socket(family, kind, proto)
        try:
            sock.setblocking(False)
            try:
                sock.connect(address)
            except (BlockingIOError, InterruptedError):
                _wait(sock, deadline, write=True)
                err = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if err != 0:
                    raise OSError(err, f"Connect call failed {address}") from None
        except OSError as exc:
            sock.close()
            if isinstance(exc, TimeoutError):
                raise
            errors.append(exc)
            continue
        except BaseException:
            sock.close()
            raise
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as asyncio's transport
        return sock
    if len(errors) == 1 or all(str(exc) == str(errors[0]) for exc in errors):
        raise errors[0]
    raise OSError("Multiple exceptions: {}".format(", ".join(str(exc) for exc in errors)))


def _wait(sock: socket.socket, deadline: float, *, write: bool) -> None:
    """Until ``sock`` is ready, or ``TimeoutError`` past ``deadline``."""
    remaining = deadline - time.monotonic()
    if remaining > 0:
        waits = ([], [sock]) if write else ([sock], [])
        readable, writable, _ = select.select(*waits, [], remaining)
        if readable or writable:
            return
    raise TimeoutError()


def _write(sock: socket.socket, data: bytes, deadline: float) -> bool:
    """Write ``data``; False when the connection is lost, ``TimeoutError`` past ``deadline``."""
    sock.settimeout(max(deadline - time.monotonic(), 1e-3))
    try:
        sock.sendall(data)
    except TimeoutError:
        raise TimeoutError() from None
    except OSError:
        return False
    return True


def _flush(sock: socket.socket, protocol: ClientProtocol, deadline: float) -> None:
    """Write what the protocol has to send; a lost connection is its end of stream."""
    for data in protocol.data_to_send():
        if not data:
            return  # the protocol ends the stream: closing the socket does that
        if not _write(sock, data, deadline):
            protocol.receive_eof()
            return


def _read(sock: socket.socket, deadline: float) -> bytes | None:
    """The next bytes (``b""``: end of stream), None when there were none after all."""
    sock.setblocking(False)
    _wait(sock, deadline, write=False)
    try:
        return sock.recv(_READ)
    except (BlockingIOError, InterruptedError):
        return None
    except OSError:
        return b""


def _receive(sock: socket.socket, protocol: ClientProtocol, deadline: float) -> None:
    """Feed the next bytes to the protocol; a lost connection is its end of stream."""
    data = _read(sock, deadline)
    if data:
        protocol.receive_data(data)
    elif data is not None:
        protocol.receive_eof()


def _as_connect_error(exc: Exception) -> Exception | None:
    """``exc`` as websockets' ``connect`` raises it, or None when ``connect`` would go on."""
    # deferred: launch -> request
    from websockets.exceptions import InvalidHandshake, InvalidStatus, InvalidURI

    if isinstance(exc, InvalidStatus):
        response = exc.response
        if response.status_code in REDIRECTS and "Location" in response.headers:
            return None
        return exc
    if isinstance(exc, TimeoutError):  # connect's words for its open_timeout
        timeout = TimeoutError("timed out during opening handshake")
        timeout.__cause__ = exc
        return timeout
    if isinstance(exc, OSError | InvalidHandshake | InvalidURI):
        return exc
    return None
