"""What the HTTP SSE channels share: one httpx client, a streamed POST, errors, stop.

A subclass names its ``path``, builds the request ``_body`` and supplies a
fold (one per attempt) that turns :class:`SSEEvent` values into channel events.
The body is always read to EOF, also after ``[DONE]`` or a terminal event, so
the connection goes back to the pool (breaking out early forces a new
connection per turn). ``stop()`` closes the response stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Mapping
from ipaddress import ip_address
from typing import Any, ClassVar, Protocol
from urllib.parse import urlsplit

import httpx

from spark_cli.protocol.channel import (
    Capabilities,
    ChannelError,
    ChannelEvent,
    RequestSent,
    ResponseStarted,
    TextDelta,
    TurnFinished,
    TurnRequest,
    UsageReported,
)
from spark_cli.protocol.sse import SSEDecoder, SSEEvent
from spark_cli.transport.errors import error_from_body, redact
from spark_cli.transport.retry import RetryPolicy, with_retries


class StreamFold(Protocol):
    deltas: int
    finished: TurnFinished | None
    usage: UsageReported | None
    held: TextDelta | None
    """Text that arrived with the first chunk, yielded right after ResponseStarted."""

    def feed(self, event: SSEEvent) -> ChannelEvent | None: ...

    def at_eof(self) -> TurnFinished | None:
        """The turn's end when the body ended, or None if it ended too early."""
        ...


def is_loopback(base_url: str) -> bool:
    host = urlsplit(base_url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False


class HttpStreamChannel:
    """Base of the Chat Completions and Responses SSE channels."""

    path: ClassVar[str]
    capabilities = Capabilities(steer=False, cancel=False, persistent=False)

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        *,
        model: str | None = None,
        extra_headers: Mapping[str, str] | None = None,
        idle_timeout: float = 10.0,
        connect_timeout: float = 5.0,
        max_retries: int = 3,
        max_wait: float = 30.0,
        retry_policy: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        headers = {"Accept": "text/event-stream", **dict(extra_headers or {})}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._api_key = api_key
        self._model = model
        self._base_url = base_url
        self._idle = idle_timeout
        self._policy = retry_policy or RetryPolicy(max_attempts=max_retries + 1, max_wait=max_wait)
        self._client = httpx.AsyncClient(
            base_url=base_url,
            headers=headers,
            timeout=httpx.Timeout(
                connect=connect_timeout, read=idle_timeout, write=idle_timeout, pool=connect_timeout
            ),
            trust_env=not is_loopback(base_url),
            # plain http never uses TLS: skip loading the CA bundle (~30 ms per client)
            verify=urlsplit(base_url).scheme.lower() == "https",
            transport=transport,
        )
        self._stop = asyncio.Event()
        self._response: httpx.Response | None = None
        self._stopping = False

    # ---- subclass hooks ----

    def _body(self, request: TurnRequest) -> dict[str, Any]:
        raise NotImplementedError

    def _fold(self) -> StreamFold:
        raise NotImplementedError

    # ---- Channel ----

    async def warm(self) -> None:
        """Nothing persists between HTTP turns beyond the connection pool."""

    async def steer(self, text: str) -> None:
        raise ChannelError("bad_request", "this channel cannot steer a running response")

    async def stop(self) -> None:
        self._stop.set()
        self._stopping = True
        response = self._response
        if response is not None:
            await response.aclose()

    async def aclose(self) -> None:
        await self._client.aclose()

    async def stream(self, request: TurnRequest) -> AsyncIterator[ChannelEvent]:
        self._stop = asyncio.Event()
        self._stopping = False
        try:
            async for event in with_retries(
                lambda attempt: self._attempt(request), self._policy, self._stop
            ):
                yield event
        finally:
            self._response = None

    async def _attempt(self, request: TurnRequest) -> AsyncIterator[ChannelEvent]:
        outgoing = self._client.build_request("POST", self.path, json=self._body(request))
        fold = self._fold()
        yield RequestSent(time.perf_counter())
        try:
            response = await self._send(outgoing)
            if response is None:
                yield TurnFinished("cancelled", "stopped before the response started")
                return
            try:
                self._response = response
                if self._stopping:
                    yield TurnFinished("cancelled", "stopped before the response started")
                    return
                if response.status_code >= 400:
                    raw = await response.aread()
                    raise error_from_body(
                        response.status_code, raw, headers=response.headers, api_key=self._api_key
                    )
                async for event in self._read(response, fold):
                    yield event
            finally:
                self._response = None
                await response.aclose()
        except httpx.TimeoutException as exc:
            if self._stopping:
                yield TurnFinished("cancelled")
                return
            raise self._timeout(exc, fold) from None
        except (httpx.TransportError, httpx.StreamError) as exc:
            if self._stopping:
                yield TurnFinished("cancelled")
                return
            raise self._transport_error(exc, fold) from None

    async def _send(self, outgoing: httpx.Request) -> httpx.Response | None:
        """The response (headers read, body streaming), or None when stop() came first."""
        send = asyncio.ensure_future(self._client.send(outgoing, stream=True))
        stopped = asyncio.ensure_future(self._stop.wait())
        try:
            await asyncio.wait((send, stopped), return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopped.cancel()
            if not send.done():
                send.cancel()
                with contextlib.suppress(BaseException):
                    await send
        if send.cancelled():
            return None
        response = send.result()
        if self._stop.is_set():
            await response.aclose()
            return None
        return response

    async def _read(
        self, response: httpx.Response, fold: StreamFold
    ) -> AsyncIterator[ChannelEvent]:
        feed_line = SSEDecoder().feed_line
        feed = fold.feed
        async for line in response.aiter_lines():
            sse = feed_line(line)
            if sse is None or fold.finished is not None:
                continue
            out = feed(sse)
            if out is None or self._stopping or fold.finished is not None:
                continue  # the terminal event is yielded at EOF, after the body was drained
            yield out
            if type(out) is ResponseStarted and fold.held is not None:
                held, fold.held = fold.held, None
                yield held
        if self._stopping:
            yield TurnFinished(
                "cancelled", None, fold.finished.response_id if fold.finished else None
            )
            return
        finished = fold.at_eof()
        if finished is None:
            raise ChannelError(
                "connection",
                f"connection closed after {fold.deltas} tokens before the response finished",
                retryable=True,
            )
        if fold.usage is not None:
            yield fold.usage
        yield finished

    def _timeout(self, exc: httpx.TimeoutException, fold: StreamFold) -> ChannelError:
        if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout):
            return ChannelError(
                "connection", f"timed out connecting to {self._base_url}", retryable=True
            )
        return ChannelError(
            "timeout",
            f"no data from the server for {self._idle:g}s after {fold.deltas} tokens "
            "(idle timeout)",
            retryable=fold.deltas == 0,
        )

    def _transport_error(self, exc: Exception, fold: StreamFold) -> ChannelError:
        detail = redact(str(exc) or type(exc).__name__, self._api_key)
        if isinstance(exc, httpx.ConnectError):
            return ChannelError(
                "connection", f"cannot connect to {self._base_url}: {detail}", retryable=True
            )
        return ChannelError(
            "connection",
            f"connection closed after {fold.deltas} tokens before the response finished ({detail})",
            retryable=True,
        )
