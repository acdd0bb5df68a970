"""WebSocket connections for the Responses channel: the current one and a warm spare that
replaces a lost one without a handshake; closing happens in the background."""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidHandshake, InvalidMessage, InvalidStatus, InvalidURI
from websockets.protocol import State

from spark_cli.protocol.channel import ChannelError
from spark_cli.protocol.secrets import Secrets
from spark_cli.transport.bodies import USER_AGENT
from spark_cli.transport.errors import (
    error_from_body,
    unanswered,
    unreachable_error,
)
from spark_cli.transport.ws_wire import (
    CLOSE_TIMEOUT,
    EXTENSIONS_HEADER,
    MAX_FRAME,
    Chain,
    extensions_in,
    handshake_logger,
)

if TYPE_CHECKING:
    from spark_cli.transport.fast.ws_ahead import WsAhead


@dataclass(slots=True)
class Link:
    """One WebSocket connection of the channel and what it carries."""

    ws: ClientConnection
    number: int
    extensions: frozenset[str]
    """Non-standard features the server advertised (the engine's ``response.cancel``)."""
    chain: Chain | None = None
    busy: Any = None
    """The latest request sent on this connection (the channel's run state)."""
    sent: tuple[str, float] | None = None
    """A frame sent ahead on this connection that no turn claimed yet: (payload, when)."""

    @property
    def open(self) -> bool:
        return self.ws.state is State.OPEN


class Links:
    """The current connection, a warm spare, and background closing."""

    def __init__(
        self,
        url: str,
        headers: Mapping[str, str],
        secrets: Secrets,
        *,
        connect_timeout: float,
        warm_spare: bool,
    ) -> None:
        self._url = url
        self._headers = dict(headers)
        self._secrets = secrets
        self._connect_timeout = connect_timeout
        self._warm_spare = warm_spare
        self.current: Link | None = None
        self._spare: asyncio.Task[Link] | None = None
        self.lost: str | None = None
        """Why the previous connection (and its server state) was lost, until reported."""
        self.handshakes = 0
        self._closers: set[asyncio.Future[Any]] = set()
        self.ahead: WsAhead | None = None
        """What :func:`spark_cli.transport.fast.send_ahead` did, until the first connect uses it."""

    def forget_ahead(self, *, keep_error: bool = False) -> None:
        """Close a connection opened ahead; its error too unless ``keep_error``."""
        ahead = self.ahead
        if ahead is None:
            return
        ahead.close()
        if not (keep_error and ahead.error is not None):
            self.ahead = None

    async def get(self) -> Link:
        """The open current link; else the spare (or a new connection) becomes current."""
        link = self.current
        if link is not None and link.open:
            return link
        if link is not None:
            self.lost = self.lost or "connection closed"
            self.current = None
        link = await self._take_spare()
        if link is None:
            link = await self.connect()
        self.current = link
        return link

    def replenish(self) -> None:
        """Open a spare in the background if there is none (between turns, never during one)."""
        if not self._warm_spare or self.current is None:
            return
        spare = self._spare
        if spare is not None and not (spare.done() and _failed_or_closed(spare)):
            return
        self._spare = asyncio.ensure_future(self.connect())
        self._spare.add_done_callback(_retrieve)

    async def _take_spare(self) -> Link | None:
        spare, self._spare = self._spare, None
        if spare is None:
            return None
        try:
            link = await spare
        except ChannelError:
            return None
        return link if link.open else None

    async def connect(self) -> Link:
        """Open a new connection (not made current): first the one opened ahead, or its failure."""
        ahead, self.ahead = self.ahead, None
        ahead_sent: tuple[str, float] | None = None
        try:
            if ahead is not None and ahead.error is not None:
                raise ahead.error
            if ahead is not None and ahead.open:
                from spark_cli.transport.fast.ws_adopt import adopt  # deferred: the fast path

                ws = await adopt(ahead)
                if ahead.payload is not None and ahead.at is not None:
                    ahead_sent = (ahead.payload, ahead.at)
            else:
                ws = await connect(
                    self._url,
                    additional_headers=self._headers,
                    compression=None,
                    proxy=None,
                    max_size=MAX_FRAME,
                    open_timeout=self._connect_timeout,
                    close_timeout=CLOSE_TIMEOUT,
                    user_agent_header=USER_AGENT,
                    logger=handshake_logger(),
                )
        except InvalidStatus as exc:
            response = exc.response
            raise error_from_body(
                response.status_code,
                bytes(response.body or b""),
                headers=dict(response.headers.raw_items()),
                secrets=self._secrets,
                url=self._url,
            ) from None
        except InvalidMessage as exc:  # not HTTP/1.1 (an HTTP/1.0 answer reads as its status)
            raise (unanswered(self._url, exc, self._secrets)
                   or unreachable_error(self._url, exc, self._secrets)) from None
        except (OSError, TimeoutError, InvalidHandshake, InvalidURI) as exc:
            raise unreachable_error(self._url, exc, self._secrets) from None
        self.handshakes += 1
        header = ws.response.headers.get(EXTENSIONS_HEADER, "") if ws.response else ""
        return Link(ws, self.handshakes, extensions_in(header), sent=ahead_sent)

    def drop(self, link: Link, reason: str) -> None:
        """Forget ``link`` (its server state is lost) and close it in the background."""
        if self.current is link:
            self.current = None
            self.lost = reason
        link.chain = None
        if link.ws.state is not State.CLOSED:
            self.spawn(link.ws.close())

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Future[Any]:
        task = asyncio.ensure_future(coro)
        self._closers.add(task)
        task.add_done_callback(self._closers.discard)
        return task

    async def aclose(self) -> None:
        self.forget_ahead()
        spare, self._spare = self._spare, None
        if spare is not None:
            spare.cancel()
            with contextlib.suppress(BaseException):
                await (await spare).ws.close()
        link, self.current = self.current, None
        if link is not None:
            await link.ws.close()
        for task in list(self._closers):
            with contextlib.suppress(BaseException):
                await task


def _failed_or_closed(task: asyncio.Future[Link]) -> bool:
    if task.cancelled() or task.exception() is not None:
        return True
    return not task.result().open


def _retrieve(task: asyncio.Future[Any]) -> None:
    """Mark a spare's failure as seen; the turn that wants the spare connects anew."""
    if not task.cancelled():
        task.exception()


def message_ready(ws: object) -> Callable[[], bool] | None:
    """Whether ``ws`` holds a whole message, so ``recv()`` returns at once (None if unknown).

    Reads websockets' undocumented ``recv_messages.frames.queue`` (13-17): the last frame held
    ends a message."""
    queue = getattr(getattr(getattr(ws, "recv_messages", None), "frames", None), "queue", None)
    if not isinstance(queue, deque):
        return None

    def ready() -> bool:
        return bool(queue) and bool(getattr(queue[-1], "fin", False))

    return ready
