"""The fast channel: OpenAI Responses over one persistent WebSocket."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Mapping
from dataclasses import dataclass, field
from time import monotonic
from typing import TYPE_CHECKING

from websockets.exceptions import ConnectionClosed

from spark_cli.protocol.channel import (
    Capabilities,
    ChannelError,
    ChannelEvent,
    Message,
    Reconnected,
    RequestSent,
    TextDelta,
    TurnFinished,
    TurnRequest,
)
from spark_cli.protocol.secrets import Secrets
from spark_cli.transport.bodies import key_headers, responses_item
from spark_cli.transport.errors import ProviderError, masked
from spark_cli.transport.reading import GATHER_S, Decision, ReadMachine, Step, merged
from spark_cli.transport.responses_fold import ResponsesFold, chain_after
from spark_cli.transport.retry import RetryPolicy, with_retries
from spark_cli.transport.silence import QUEUE_TIMEOUT, quiet_for
from spark_cli.transport.ws.ws_links import Link, Links, message_ready
from spark_cli.transport.ws_wire import Chain, create_payload

if TYPE_CHECKING:
    from spark_cli.transport.fast.ws_ahead import WsAhead

CANCEL_EXTENSION = "response.cancel"
REPLAY_CODES = frozenset({"previous_response_not_found", "websocket_connection_limit_reached"})
CANCEL_GRACE = 2.0
"""Seconds to wait for the engine to end a cancelled response before closing the socket."""


@dataclass(slots=True)
class _Running:
    """One attempt of a response on a connection: its state and its owner."""

    link: Link
    machine: ReadMachine[ResponsesFold]
    """What the response's state is and what each frame means (sans-I/O)."""
    owner: object
    steers: list[str] = field(default_factory=list)
    grace: asyncio.Future[None] | None = None
    """Closes the socket if a cancelled response does not end in time."""

    @property
    def fold(self) -> ResponsesFold:
        return self.machine.fold


class ResponsesWebSocketChannel:
    """A :class:`~spark_cli.protocol.channel.Channel` over the Responses WebSocket mode.

    - One connection across turns, ``previous_response_id`` chaining, ``store: false``.
    - Full-context replay after a drop, a stop or a connection limit (:class:`Reconnected`);
      ``previous_response_not_found`` replays on the same connection.
    - A warm spare, so the turn after ``stop()`` pays no handshake; the engine's
      ``response.cancel`` only where its handshake advertises it.
    - Steering; the queue timeout while ``response.queued``; a first connection sent ahead."""

    def __init__(
        self,
        url: str,
        api_key: str | None,
        *,
        extra_headers: Mapping[str, str] | None = None,
        idle_timeout: float = 10.0,
        connect_timeout: float = 5.0,
        warm_spare: bool = True,
        max_retries: int = 3,
        retry_policy: RetryPolicy | None = None,
        use_cancel_extension: bool = True,
        secrets: Iterable[str] = (),
        ahead: WsAhead | None = None,
        first_token_timeout: float | None = None,
    ) -> None:
        """``ahead``: the connection :func:`~spark_cli.transport.fast.send_ahead` opened, if any."""
        self._secrets = (secrets if isinstance(secrets, Secrets) else Secrets(secrets)).including(
            api_key)
        """Every key spark can see: masked in any message this channel makes."""
        headers = key_headers(api_key, extra_headers)
        self._idle = idle_timeout
        self._first_token = first_token_timeout
        self._use_cancel = use_cancel_extension
        self._policy = retry_policy or RetryPolicy(max_attempts=max_retries + 1)
        self._links = Links(
            url, headers, self._secrets, connect_timeout=connect_timeout, warm_spare=warm_spare
        )
        if ahead is not None and ahead.url != url:
            ahead.close()  # opened for another URL: not this channel's
            ahead = None
        self._links.ahead = ahead
        self._running: _Running | None = None
        self._stop = asyncio.Event()

    @property
    def handshakes(self) -> int:
        """Connections opened so far (spares included)."""
        return self._links.handshakes

    @property
    def capabilities(self) -> Capabilities:
        link = self._links.current
        cancel = self._use_cancel and link is not None and CANCEL_EXTENSION in link.extensions
        return Capabilities(steer=True, cancel=cancel)

    async def warm(self, request: TurnRequest | None = None) -> None:
        """Open the connection and spare; send ``request`` ahead with ``generate: false``."""
        self._links.forget_ahead(keep_error=True)  # a frame sent ahead is no warm-up's
        try:
            link = await self._links.get()
            self._links.replenish()
            if request is None:
                return
            self._links.lost = None  # nothing to replay: the warm-up sends the whole context
            await link.ws.send(self._payload(request, link, generate=False))
            run = _Running(link, self._machine(request), None)
            async for _ in self._read(run, request):
                pass
        except ChannelError as error:
            raise masked(error, self._secrets) from error.__cause__
        finished = run.fold.finished
        if finished is not None and finished.status == "completed" and run.fold.response_id:
            link.chain = Chain(run.fold.response_id, request.messages)

    async def stream(self, request: TurnRequest) -> AsyncGenerator[ChannelEvent, None]:
        self._stop = asyncio.Event()
        ahead = self._links.ahead
        if ahead is not None and ahead.payload not in (None, create_payload(request, None)):
            self._links.forget_ahead(keep_error=True)  # it sent another request
        turn = object()
        try:
            async for event in with_retries(
                lambda attempt: self._attempt(request, turn), self._policy, self._stop,
                secrets=self._secrets,
            ):
                yield event
        finally:
            self._links.replenish()
            run = self._running
            if run is not None and run.owner is turn:
                self._running = None
                if run.grace is not None:
                    run.grace.cancel()
                if not run.machine.over:
                    # frames would leak
                    self._links.drop(run.link, "the previous turn was abandoned")

    async def steer(self, text: str) -> None:
        """Send ``response.steer`` for the running response (outcome arrives as events)."""
        run = self._running
        if (run is None or run.machine.stopping or run.fold.response_id is None
                or run.fold.finished):
            raise ChannelError("bad_request", "no response is running to steer")
        payload = {
            "type": "response.steer",
            "previous_response_id": run.fold.response_id,
            "input": [responses_item(Message("user", text))],
        }
        try:
            await run.link.ws.send(json.dumps(payload))
        except ConnectionClosed as exc:
            raise ChannelError(
                "connection", "the connection closed before the steer was sent"
            ) from exc
        run.steers.append(text)

    async def stop(self) -> None:
        """End the running turn now: the cancel extension where advertised, else close."""
        self._stop.set()
        run = self._running
        if run is None or not run.machine.stop():
            return
        link = run.link
        response_id = run.fold.response_id
        cancel = self._use_cancel and CANCEL_EXTENSION in link.extensions
        if cancel and response_id is not None and link.open:
            payload = json.dumps({"type": CANCEL_EXTENSION, "response_id": response_id})
            with contextlib.suppress(ConnectionClosed):
                await link.ws.send(payload)
                run.grace = self._links.spawn(self._close_if_still_running(run))
                return
        self._links.drop(link, "stopped")

    async def aclose(self) -> None:
        run = self._running
        if run is not None and run.grace is not None:
            run.grace.cancel()
        await self._links.aclose()

    # ---- one attempt ----

    async def _attempt(self, request: TurnRequest, turn: object) -> AsyncIterator[ChannelEvent]:
        link = await self._links.get()
        busy = link.busy
        if busy is not None and not (busy.fold.finished or busy.machine.ended):
            # an earlier turn was walked away from mid-stream: its frames would leak into this one
            self._links.drop(link, "the previous turn was abandoned")
            link = await self._links.get()
        replayed = False
        while True:
            if self._links.lost is not None:
                yield Reconnected(self._links.lost)
                self._links.lost = None
            sent, link.sent = link.sent, None
            if self._stop.is_set():
                if sent is not None:
                    self._links.drop(link, "stopped")  # it answers a request sent ahead
                yield TurnFinished("cancelled", "stopped before the request was sent")
                return
            payload = self._payload(request, link)
            if sent is not None and sent[0] == payload:
                yield RequestSent(sent[1])  # sent ahead, before asyncio was imported
            else:
                try:
                    await link.ws.send(payload)
                except ConnectionClosed as exc:
                    self._links.drop(link, "connection closed")
                    raise ChannelError(
                        "connection",
                        "the connection closed before the request was sent",
                        retryable=True,
                    ) from exc
                yield RequestSent(time.perf_counter())
            run = _Running(link, self._machine(request), turn)
            self._running = link.busy = run
            try:
                async for event in self._read(run, request):
                    yield event
            except ProviderError as error:
                if replayed or error.code not in REPLAY_CODES or run.fold.deltas:
                    raise
                replayed = True
                link.chain = None  # the next payload carries the whole context
                if error.code == "websocket_connection_limit_reached":
                    self._links.drop(link, error.code)  # reported as Reconnected(code)
                    link = await self._links.get()
                continue
            return

    def _decided(self, step: Decision, run: _Running,
                 request: TurnRequest) -> tuple[ChannelEvent, ...]:
        """Carry out a ReadMachine decision; the events it emits (raises its error)."""
        if step.drop is not None:
            self._links.drop(run.link, step.drop)
        if step.error is not None:
            raise step.error from None
        if step.remember:  # the chain the connection holds now
            run.link.chain = (None if run.machine.stopping
                              else chain_after(request, run.fold, run.steers))
        return step.emit

    async def _read(self, run: _Running, request: TurnRequest) -> AsyncIterator[ChannelEvent]:
        """Frames of one response until its end; every decision is the ReadMachine's."""
        link = run.link
        ws = link.ws
        machine = run.machine
        on_event = machine.on_event
        feed = machine.fold.feed
        loads = json.loads
        ready = message_ready(ws) or _never
        pace = GATHER_S if ready is not _never else 0.0
        text: list[str] = []  # deltas already received, merged (reading.merged)
        while True:
            if text and not ready():  # the next recv() would wait: hand the text up
                yield merged(text)
                text = []
                if pace:
                    await asyncio.sleep(pace)  # the tokens that come meanwhile go up together
            step: Step
            try:
                if ready():  # a whole message is held: recv() does not wait
                    raw = await ws.recv()
                else:
                    async with quiet_for(monotonic(), machine.limit):
                        raw = await ws.recv()
            except TimeoutError:
                step = machine.on_silence()
            except ConnectionClosed as exc:
                step = machine.on_closed(_close_detail(exc))
            else:
                try:
                    step = on_event(feed(loads(raw)), link.open)
                except ProviderError as error:
                    step = machine.on_provider_error(error)
                except ValueError:
                    step = machine.on_malformed(raw)
                except ChannelError as error:
                    step = machine.on_bad_event(error)
            if step is None:
                continue
            if type(step) is TextDelta:  # the per-token path
                text.append(step.text)
                continue
            if text:  # the text before this event goes first: the order kept exactly
                yield merged(text)
                text = []
            if not isinstance(step, Decision):
                yield step  # a ChannelEvent as it is
                continue
            for event in self._decided(step, run, request):
                yield event
            if step.done:
                return

    # ---- helpers ----

    def _machine(self, request: TurnRequest) -> ReadMachine[ResponsesFold]:
        fold = ResponsesFold(self._secrets, tools=bool(request.tools))
        return ReadMachine.for_turn(fold, request, self._idle, QUEUE_TIMEOUT,
                                    self._first_token)

    def _payload(self, request: TurnRequest, link: Link, *, generate: bool = True) -> str:
        """The ``response.create`` frame (tests spy on what is sent here)."""
        return create_payload(request, link.chain, generate=generate)

    async def _close_if_still_running(self, run: _Running) -> None:
        await asyncio.sleep(CANCEL_GRACE)
        if self._running is run and run.fold.finished is None:
            self._links.drop(run.link, "cancel not acknowledged")


def _never() -> bool:
    return False


def _close_detail(exc: ConnectionClosed) -> str:
    frame = exc.rcvd
    if frame is None or not frame.code:
        return ""
    reason = f" {frame.reason}" if frame.reason else ""
    return f" (close code {frame.code}{reason})"
