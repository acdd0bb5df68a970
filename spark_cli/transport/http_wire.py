"""What the SSE channels need from an HTTP client, and the failures both clients raise
(named after httpx's, the library's exception as ``__cause__``)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import asyncio


class TransportError(Exception):
    """The connection failed or broke (httpx: ``TransportError`` / ``StreamError``)."""


class TimeoutException(TransportError):
    pass


class ConnectTimeout(TimeoutException):
    pass


class WriteTimeout(TimeoutException):
    pass


class ConnectError(TransportError):
    pass


class ReadError(TransportError):
    pass


class RemoteProtocolError(TransportError):
    """The server broke HTTP/1.1 (h11's words, e.g. ``illegal status line: ...``)."""


class DecodingError(TransportError):
    """A gzip or deflate body that does not decode (httpx raises its own, uncaught)."""


class StreamClosed(TransportError):
    def __init__(self) -> None:
        super().__init__("Attempted to read or stream content, but the stream has been closed.")


class Response(Protocol):
    status_code: int
    headers: Mapping[str, str]
    gathers: bool
    """A batch holds every chunk already received: a reader may pause between batches."""

    async def aread(self) -> bytes: ...

    def aiter_line_batches(self) -> AsyncIterator[list[str]]:
        """The lines of each chunk as it arrives, together (never an empty list)."""
        ...

    async def aclose(self) -> None: ...


class Exchange:
    """One POST in flight: ``task`` resolves to the response; ``left`` is set once the body left."""

    __slots__ = ("at", "left", "task")

    task: asyncio.Future[Response]

    def __init__(self) -> None:
        import asyncio  # deferred: launch -> request

        self.at: float | None = None
        self.left = asyncio.Event()

    def sent_at(self) -> float:
        """When the request left; raises what stopped it if it never did."""
        if self.at is None:
            self.task.result()  # the send failed: raise why (or it answered untraced)
            self.at = time.perf_counter()
        return self.at

    async def settle(self, response: Response | None) -> None:
        """Cancel the send if still in flight, else close the response it produced."""
        task = self.task
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
            return
        if response is None and not task.cancelled() and task.exception() is None:
            response = task.result()
        if response is not None:
            await response.aclose()


class HttpClient(Protocol):
    def post(self, path: str, body: bytes) -> Exchange:
        """Start POSTing ``body`` (JSON) to ``path`` under the base URL."""
        ...

    async def aclose(self) -> None: ...
