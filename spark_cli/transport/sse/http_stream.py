"""What the HTTP SSE channels share: one HTTP client, a streamed POST, errors, stop.

A subclass names its ``path``, builds the request ``_body`` and supplies a
fold (one per attempt) that turns :class:`SSEEvent` values into channel events.
The body is always read to EOF, also after ``[DONE]`` or a terminal event, so
the connection goes back to the pool (breaking out early forces a new
connection per turn). ``stop()`` closes the response stream. The client is the one
:mod:`http_route` chooses; both report the :mod:`http_wire` failures.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable, Iterator, Mapping
from time import monotonic
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from spark_cli.protocol.channel import (
    Capabilities,
    ChannelError,
    ChannelEvent,
    Queued,
    RequestSent,
    TextDelta,
    TurnFinished,
    TurnRequest,
    UsageReported,
)
from spark_cli.protocol.secrets import Secrets, mask_url, mask_urls_in
from spark_cli.protocol.sse import COMMENT, SSEDecoder, SSEEvent
from spark_cli.transport.bodies import encode, stream_headers
from spark_cli.transport.errors import (
    endpoint,
    error_from_body,
    output_so_far,
    unanswered,
    unreachable_error,
)
from spark_cli.transport.retry import RetryPolicy, with_retries
from spark_cli.transport.silence import (
    QUEUE_TIMEOUT,
    RESEND_SAID,
    IdleWatch,
    first_token_limit,
    prefill_timeout,
    prompt_tokens,
    resend_note,
    stall_error,
)
from spark_cli.transport.sse import http_wire as wire
from spark_cli.transport.sse.http_route import open_client
from spark_cli.transport.text_merge import merged

if TYPE_CHECKING:
    import httpx

    from spark_cli.transport.sse.http_wire import HttpAhead


class StreamFold(Protocol):
    deltas: int
    """Output pieces seen: text deltas and calls started (0: nothing was output, a retry
    is safe)."""
    finished: TurnFinished | None
    usage: UsageReported | None
    more: tuple[ChannelEvent, ...]
    """Events the last ``feed`` made after the one it returned (text that came with the
    first chunk, a call's start and end in one chunk, several calls completed at once),
    in order; ``()`` otherwise. A ``TurnFinished`` among them is the turn's end: it is
    yielded at EOF, as the one ``feed`` returns would be."""

    @property
    def chars(self) -> int:
        """Characters of output so far (for honest error messages)."""
        ...

    def feed(self, event: SSEEvent) -> ChannelEvent | None: ...

    def at_eof(self) -> TurnFinished | None:
        """The turn's end when the body ended, or None if it ended too early."""
        ...


async def first_of(stop: asyncio.Event, *waits: Any) -> None:
    """Return when any future in ``waits`` is done (coroutines are wrapped) or ``stop`` is set."""
    stopped = asyncio.ensure_future(stop.wait())
    futures = [asyncio.ensure_future(w) for w in waits]
    try:
        await asyncio.wait((stopped, *futures), return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopped.cancel()
        for future, wait in zip(futures, waits, strict=True):
            if future is not wait:
                future.cancel()  # a wrapper made here, not the caller's future


def queued_notice(comment: str) -> Queued | None:
    """``queued 3`` (an SSE comment) → ``Queued(3)``; any other comment → None."""
    word, _, rest = comment.partition(" ")
    if word != "queued":
        return None
    try:
        position = int(rest.strip())
    except ValueError:
        return None
    return Queued(position) if position > 0 else None


class HttpStreamChannel:
    """Base of the Chat Completions and Responses SSE channels.

    - ``RequestSent`` is yielded once the request body has been written (the
      client says when), while the response headers are still on the way, so
      whatever the consumer does on it overlaps the model's TTFT; a request that
      never left (unreachable host) yields none.
    - Silence is timed by :class:`IdleWatch` (the clients have no read timeout).
      Until the first token the limit is the first-token timeout, counted from the
      request leaving (:mod:`spark_cli.transport.silence`: a slow prefill is not a
      stall, and a request that timed out there is not sent again); the idle
      timeout applies between tokens. SSE comments count as activity;
      ``: queued N`` comments (the bundled engine's Chat Completions form) become
      :class:`Queued`, and while the server says the request is queued the much
      longer ``queue_timeout`` applies.
    - A host name that does not resolve is not retried.
    """

    path: ClassVar[str]
    fold: ClassVar[Callable[..., StreamFold]]
    """Makes the attempt's fold: ``fold(secrets, tools=...)``."""
    capabilities = Capabilities(steer=False, cancel=False)

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        *,
        model: str | None = None,
        extra_headers: Mapping[str, str] | None = None,
        idle_timeout: float = 10.0,
        first_token_timeout: float | None = None,
        queue_timeout: float = QUEUE_TIMEOUT,
        connect_timeout: float = 5.0,
        max_retries: int = 3,
        max_wait: float = 30.0,
        retry_policy: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        secrets: Iterable[str] = (),
        ahead: HttpAhead | None = None,
    ) -> None:
        headers = stream_headers(api_key, extra_headers)
        self._secrets = Secrets((api_key, *secrets))
        """Every key spark can see: masked in any message this channel makes."""
        self._model = model
        self._base_url = base_url
        self._shown_url = mask_url(base_url)
        self._idle = idle_timeout
        self._first_token = first_token_timeout
        """Seconds allowed before the first token (None: from the prompt's size)."""
        self._prefill_since: float | None = None
        """When the current attempt's prefill began (None: output has started)."""
        self._prefill_limit = idle_timeout
        self._sent_body: dict[str, Any] = {}
        self._queue_timeout = max(queue_timeout, idle_timeout)
        self._policy = retry_policy or RetryPolicy(max_attempts=max_retries + 1, max_wait=max_wait)
        self._net = open_client(base_url, headers, connect_timeout=connect_timeout,
                                write_timeout=idle_timeout, transport=transport, ahead=ahead)
        """``ahead``: this turn's request, already sent (:func:`http_route.send_ahead`): the first
        attempt adopts it if it is the same request, byte for byte."""
        self._stop = asyncio.Event()
        self._response: wire.Response | None = None
        self._stopping = False
        self._queued = False

    # ---- subclass hooks ----

    def _body(self, request: TurnRequest) -> dict[str, Any]:
        raise NotImplementedError

    def _fold(self, request: TurnRequest) -> StreamFold:
        return self.fold(self._secrets, tools=bool(request.tools))

    def _decoder(self) -> Callable[[str], SSEEvent | None]:
        """What makes an event of each line of the body (SSE; a subclass may differ)."""
        return SSEDecoder(comments=True).feed_line

    # ---- Channel ----

    async def warm(self, request: TurnRequest | None = None) -> None:
        """Nothing persists between HTTP turns beyond the connection pool (the
        context travels with every request, so ``request`` is not sent ahead)."""

    async def steer(self, text: str) -> None:
        raise ChannelError("bad_request", "this channel cannot steer a running response")

    async def stop(self) -> None:
        self._stop.set()
        self._stopping = True
        response = self._response
        if response is not None:
            await response.aclose()

    async def aclose(self) -> None:
        await self._net.aclose()

    async def stream(self, request: TurnRequest) -> AsyncGenerator[ChannelEvent, None]:
        self._stop = asyncio.Event()
        self._stopping = False
        try:
            tokens = prompt_tokens(request)
            async for event in with_retries(
                lambda attempt: self._attempt(request), self._policy, self._stop,
                secrets=self._secrets, resend=resend_note(tokens) if tokens > RESEND_SAID else "",
            ):
                yield event
        finally:
            self._response = None

    async def _attempt(self, request: TurnRequest) -> AsyncIterator[ChannelEvent]:
        self._sent_body = self._body(request)
        body = encode(self._sent_body)
        fold = self._fold(request)
        self._queued = False
        self._prefill_since = None
        watch = IdleWatch(self._idle)
        watch.since = monotonic()
        sending = self._net.post(self.path, body)
        response: wire.Response | None = None
        try:
            await first_of(self._stop, sending.task, sending.left.wait())
            if self._stop.is_set():
                yield TurnFinished("cancelled", "stopped before the response started")
                return
            at = sending.sent_at()
            watch.since = None
            yield RequestSent(at)  # the headers are still on the way: work here overlaps TTFT
            self._prefill_limit = first_token_limit(request, self._first_token, self._idle)
            watch.since = self._prefill_since = monotonic()
            watch.set_limit(self._prefill_limit)
            await first_of(self._stop, sending.task)
            if self._stop.is_set():
                yield TurnFinished("cancelled", "stopped before the response started")
                return
            response = self._response = sending.task.result()
            watch.since = None
            if response.status_code >= 400:
                raw = await response.aread()
                raise error_from_body(response.status_code, raw, headers=response.headers,
                                      secrets=self._secrets, tools=bool(request.tools),
                                      url=endpoint(self._base_url, self.path))
            async for event in self._read(response, fold, watch):
                yield event
        except asyncio.CancelledError:
            if not watch.claim():
                raise
            if self._stopping:
                yield TurnFinished("cancelled")
                return
            if self._prefill_since is not None and not self._queued:
                raise prefill_timeout(self._prefill_limit, prompt_tokens(request),
                                      configured=self._first_token is not None) from None
            raise stall_error(self._idle, self._queue_timeout, queued=self._queued,
                              chars=fold.chars, retryable=fold.deltas == 0) from None
        except wire.TransportError as exc:  # a timeout among them
            if self._stopping:
                yield TurnFinished("cancelled")
                return
            raise self._transport_error(exc, fold) from None
        finally:
            watch.close()
            self._response = None
            await sending.settle(response)

    async def _read(
        self, response: wire.Response, fold: StreamFold, watch: IdleWatch
    ) -> AsyncIterator[ChannelEvent]:
        feed_line = self._decoder()
        next_batch = response.aiter_line_batches().__anext__
        lines = 0
        while True:
            watch.set_limit(self._silence_limit())
            # in prefill the clock runs from the request leaving: comments do not restart it
            watch.since = (self._prefill_since if self._prefill_since is not None
                           and not self._queued else monotonic())
            try:
                batch = await next_batch()
            except StopAsyncIteration:
                watch.since = None
                break
            watch.since = None
            lines += len(batch)
            for out in self._batch(batch, feed_line, fold):
                yield out
        async for event in self._ending(fold, lines):
            yield event

    def _silence_limit(self) -> float:
        """The silence allowed now: the queue timeout while queued, the first-token limit
        until the first output, else the idle timeout."""
        if self._queued:
            return self._queue_timeout
        return self._idle if self._prefill_since is None else self._prefill_limit

    def _batch(self, lines: list[str], feed_line: Callable[[str], SSEEvent | None],
               fold: StreamFold) -> Iterator[ChannelEvent]:
        """The events of one read's lines, their text deltas merged: one hop up for all."""
        text: list[str] = []
        for line in lines:
            sse = feed_line(line)
            if sse is None or fold.finished is not None:
                continue
            out = self._event(sse, fold)
            if out is None or self._stopping or type(out) is TurnFinished:
                continue  # the terminal event is yielded at EOF, after the body drained
            if type(out) is TextDelta:
                text.append(out.text)
                if not fold.more:
                    continue
            else:
                if text:  # text first, then the event after it: the order kept exactly
                    yield merged(text)
                    text = []
                yield out
            if fold.more:  # a chunk that was several events (text and calls, ...)
                if text:
                    yield merged(text)
                    text = []
                more, fold.more = fold.more, ()
                yield from (extra for extra in more if type(extra) is not TurnFinished)
        if text and not self._stopping:
            yield merged(text)

    def _event(self, sse: SSEEvent, fold: StreamFold) -> ChannelEvent | None:
        """One SSE event folded, with the queue and prefill clocks moved after it."""
        if sse.event == COMMENT:  # keep-alive, or the engine's queue position
            out: ChannelEvent | None = queued_notice(sse.data)
        else:
            out = fold.feed(sse)
            self._clocks(out, fold)
        if type(out) is Queued and not self._stopping:
            self._queued = True
        return out

    def _clocks(self, out: ChannelEvent | None, fold: StreamFold) -> None:
        """The queue and prefill clocks after one event of the stream (not a comment)."""
        if self._queued and type(out) is not Queued:
            self._queued = False  # anything else: the wait is over
            if self._prefill_since is not None:  # the prefill starts now
                self._prefill_since = monotonic()
        if self._prefill_since is not None and fold.deltas:
            self._prefill_since = None  # the first output: the idle timeout from now

    async def _ending(self, fold: StreamFold, lines: int) -> AsyncIterator[ChannelEvent]:
        """The stream's end: its usage and final status, or why it has none."""
        if self._stopping:
            yield TurnFinished(
                "cancelled", None, fold.finished.response_id if fold.finished else None
            )
            return
        finished = fold.at_eof()
        if finished is None and lines == 0:  # llama-cpp-python's overflow: ask why
            from spark_cli.transport.sse.http_empty import why_empty  # deferred: launch -> request

            raise await why_empty(self._net, self.path, self._sent_body,
                                  timeout=self._prefill_limit, secrets=self._secrets)
        if finished is None:
            raise ChannelError(
                "connection",
                f"connection closed {output_so_far(fold.chars)} before the response finished",
                retryable=True,
            )
        if fold.usage is not None:
            yield fold.usage
        yield finished

    # ---- errors ----

    def _transport_error(self, exc: Exception, fold: StreamFold) -> ChannelError:
        if isinstance(exc, wire.ConnectTimeout):
            return ChannelError(
                "connection", f"timed out connecting to {self._shown_url}", retryable=True
            )
        if isinstance(exc, wire.TimeoutException):
            return ChannelError(
                "timeout", f"timed out sending the request to {self._shown_url}", retryable=True
            )
        if isinstance(exc, wire.ConnectError):
            return unreachable_error(self._base_url, exc, self._secrets)
        unsure = isinstance(exc, wire.RemoteProtocolError)
        answered = unanswered(self._base_url, exc, self._secrets) if unsure else None
        if answered is not None:
            return answered
        detail = mask_urls_in(self._secrets.mask(str(exc) or type(exc).__name__), self._base_url)
        return ChannelError(
            "connection",
            f"connection closed {output_so_far(fold.chars)} before the response finished "
            f"({detail})",
            retryable=True,
        )

