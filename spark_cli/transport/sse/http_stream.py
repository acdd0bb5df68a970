"""What the HTTP SSE channels share: one client, a streamed POST, errors, stop. A subclass
names its ``path``, ``body`` and ``fold``; the body is always read to EOF so the connection
goes back to the pool."""

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
from spark_cli.transport import http_wire as wire
from spark_cli.transport.bodies import encode, stream_headers
from spark_cli.transport.errors import endpoint, error_from_body, unanswered, unreachable_error
from spark_cli.transport.http_route import open_client
from spark_cli.transport.reading import GATHER_S, Decision, Fold, ReadMachine, merged
from spark_cli.transport.retry import RetryPolicy, with_retries
from spark_cli.transport.silence import (
    QUEUE_TIMEOUT,
    prompt_tokens,
    quiet_for,
    resend_note,
)

if TYPE_CHECKING:
    import httpx

    from spark_cli.transport.fast.http_ahead import HttpAhead


class StreamFold(Fold, Protocol):
    """A fold fed SSE events; its end is yielded at EOF, after the body drained."""

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

    ``RequestSent`` comes once the body was written (work on it overlaps TTFT). The first-token
    limit counts from the request leaving: SSE comments do not restart it; ``: queued N``
    comments become :class:`Queued`."""

    path: ClassVar[str]
    body: ClassVar[Callable[[TurnRequest, str | None], dict[str, Any]]]
    """Makes a turn's body: ``body(request, model)``."""
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
        connect_timeout: float = 5.0,
        max_retries: int = 3,
        retry_policy: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        secrets: Iterable[str] = (),
        ahead: HttpAhead | None = None,
    ) -> None:
        headers = stream_headers(api_key, extra_headers)
        self._secrets = (secrets if isinstance(secrets, Secrets) else Secrets(secrets)).including(
            api_key)
        """Every key spark can see: masked in any message this channel makes."""
        self._model = model
        self._base_url = base_url
        self._shown_url = mask_url(base_url)
        self._idle = idle_timeout
        self._first_token = first_token_timeout
        """Seconds allowed before the first token (None: from the prompt's size)."""
        self._prefill_since = 0.0
        """When the current attempt's prefill began: the request left, or the queue's end."""
        self._sent_body: dict[str, Any] = {}
        self._policy = retry_policy or RetryPolicy(max_attempts=max_retries + 1)
        self._net = open_client(base_url, headers, connect_timeout=connect_timeout,
                                write_timeout=idle_timeout, transport=transport, ahead=ahead)
        """This turn's request sent ahead: the first attempt adopts it if the bytes match."""
        self._stop = asyncio.Event()
        self._response: wire.Response | None = None
        self._machine: ReadMachine[StreamFold] | None = None

    # ---- subclass hooks ----

    def _body(self, request: TurnRequest) -> dict[str, Any]:
        return type(self).body(request, self._model)

    def _fold(self, request: TurnRequest) -> StreamFold:
        return self.fold(self._secrets, tools=bool(request.tools))

    def _decoder(self) -> Callable[[str], SSEEvent | None]:
        """What makes an event of each line of the body (SSE; a subclass may differ)."""
        return SSEDecoder(comments=True).feed_line

    # ---- Channel ----

    async def warm(self, request: TurnRequest | None = None) -> None:
        """Nothing to warm: HTTP turns share only the connection pool."""

    async def steer(self, text: str) -> None:
        raise ChannelError("bad_request", "this channel cannot steer a running response")

    async def stop(self) -> None:
        self._stop.set()
        if self._machine is not None:
            self._machine.stop()
        response = self._response
        if response is not None:
            await response.aclose()

    async def aclose(self) -> None:
        await self._net.aclose()

    async def stream(self, request: TurnRequest) -> AsyncGenerator[ChannelEvent, None]:
        self._stop = asyncio.Event()
        try:
            async for event in with_retries(
                lambda attempt: self._attempt(request), self._policy, self._stop,
                secrets=self._secrets, resend=resend_note(prompt_tokens(request)),
            ):
                yield event
        finally:
            self._response = self._machine = None

    async def _attempt(self, request: TurnRequest) -> AsyncIterator[ChannelEvent]:
        self._sent_body = self._body(request)
        body = encode(self._sent_body)
        machine = self._machine = ReadMachine.for_turn(
            self._fold(request), request, self._idle, QUEUE_TIMEOUT, self._first_token,
            retry_started=True)
        prefill, machine.prefill = machine.prefill, None  # until the request left: a stall
        sending = self._net.post(self.path, body)
        response: wire.Response | None = None
        try:
            async with quiet_for(monotonic(), self._idle):
                await first_of(self._stop, sending.task, sending.left.wait())
            if not self._stop.is_set():
                at = sending.sent_at()
                yield RequestSent(at)  # the headers are on the way: work here overlaps TTFT
                machine.prefill = prefill
                self._prefill_since = monotonic()
                async with quiet_for(self._prefill_since, machine.limit):
                    await first_of(self._stop, sending.task)
            if self._stop.is_set():
                yield TurnFinished("cancelled", "stopped before the response started")
                return
            response = self._response = sending.task.result()
            if response.status_code >= 400:
                raw = await response.aread()
                raise error_from_body(response.status_code, raw, headers=response.headers,
                                      secrets=self._secrets, tools=bool(request.tools),
                                      url=endpoint(self._base_url, self.path))
            async for event in self._read(response, machine):
                yield event
        except TimeoutError:  # a wait's silence ran out (quiet_for)
            step = machine.on_silence()
            if step.error is not None:
                raise step.error from None
            yield machine.cancelled()
        except wire.TransportError as exc:  # a timeout among them
            if machine.stopping:
                yield machine.cancelled()
                return
            raise self._transport_error(exc, machine) from None
        finally:
            self._response = None
            await sending.settle(response)

    async def _read(
        self, response: wire.Response, machine: ReadMachine[StreamFold]
    ) -> AsyncIterator[ChannelEvent]:
        feed_line = self._decoder()
        next_batch = response.aiter_line_batches().__anext__
        pace = GATHER_S if response.gathers else 0.0
        lines = 0
        while True:
            # in prefill the clock runs from the request leaving: comments do not restart it
            since = (monotonic() if machine.prefill is None or machine.queued
                     else self._prefill_since)
            try:
                async with quiet_for(since, machine.limit):
                    batch = await next_batch()
            except StopAsyncIteration:
                break
            lines += len(batch)
            for out in self._batch(batch, feed_line, machine):
                yield out
            if pace:
                await asyncio.sleep(pace)  # the chunks that come meanwhile go up together
        async for event in self._ending(machine, lines):
            yield event

    def _batch(self, lines: list[str], feed_line: Callable[[str], SSEEvent | None],
               machine: ReadMachine[StreamFold]) -> Iterator[ChannelEvent]:
        """The events of one read's lines, text merged; the turn's end is held for EOF."""
        fold = machine.fold
        text: list[str] = []
        for line in lines:
            sse = feed_line(line)
            if sse is None or fold.finished is not None:
                continue
            if sse.event != COMMENT:
                out = fold.feed(sse)
            else:  # keep-alive, or the engine's queue position
                out = queued_notice(sse.data)
                if out is None:
                    continue
            queued = machine.queued
            step = machine.on_event(out, True)
            if queued and not machine.queued:
                self._prefill_since = monotonic()  # the wait is over: any prefill starts now
            if step is None or machine.stopping:
                continue
            if type(step) is TextDelta:
                text.append(step.text)
                if not fold.more:
                    continue
                step = machine.on_event(None, True)  # what came in the same chunk
            if text:  # text first, then the events after it: the order kept exactly
                yield merged(text)
                text = []
            for event in step.emit if isinstance(step, Decision) else (step,) if step else ():
                if type(event) is not TurnFinished and type(event) is not UsageReported:
                    yield event
        if text and not machine.stopping:
            yield merged(text)

    async def _ending(self, machine: ReadMachine[StreamFold],
                      lines: int) -> AsyncIterator[ChannelEvent]:
        """The stream's end: its usage and final status, or why it has none."""
        if machine.stopping:
            yield machine.cancelled()
            return
        fold = machine.fold
        finished = fold.at_eof()
        if finished is None and lines == 0:  # llama-cpp-python's overflow: ask why
            from spark_cli.transport.sse.http_empty import why_empty  # deferred: launch -> request

            raise await why_empty(self._net, self.path, self._sent_body,
                                  timeout=machine.first_token, secrets=self._secrets)
        if finished is None:
            raise machine.cut_short()
        if fold.usage is not None:
            yield fold.usage
        yield finished

    # ---- errors ----

    def _transport_error(self, exc: Exception, machine: ReadMachine[StreamFold]) -> ChannelError:
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
        return machine.cut_short(f" ({detail})")

