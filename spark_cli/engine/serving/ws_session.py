"""One WebSocket connection on ``/v1/responses``: client events in, response events out
(docs/engine.md has the whole contract)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Awaitable, Callable
from typing import Any

from spark_cli.engine.core.faults import StreamDropped
from spark_cli.engine.core.generation import Generation, Outcome
from spark_cli.engine.core.pieces import count_input
from spark_cli.engine.core.state import Conversation, EngineState
from spark_cli.engine.serving.conversations import (
    Lane,
    Memory,
    answered,
    brain_request,
    continued,
    lane_full_error,
    turns,
)
from spark_cli.engine.wire import responses as wire
from spark_cli.engine.wire.response_events import ResponseEvents, error_event, usage_object
from spark_cli.engine.wire.responses import CancelRequest, CreateRequest, SteerRequest, WireError

SendText = Callable[[str], Awaitable[None]]
Close = Callable[[int, str], Awaitable[None]]
Receive = Callable[[], Awaitable[str | bytes | None]]
Abort = Callable[[], bool]
"""Drops the connection without a close frame; False when the server cannot."""
DROP_CLOSE_CODE = 1011
"""Only when the transport cannot be aborted: the drop fault then closes with 1011."""


class WsSession:
    """One connection's lanes, live responses and chain memory (docs/engine.md)."""

    def __init__(self, state: EngineState, send_text: SendText, close: Close,
                 abort: Abort | None = None) -> None:
        self.state = state
        self._send_text = send_text
        self._close = close
        self._abort = abort
        self.lanes: dict[str | None, Lane] = {}
        self.memory = Memory()
        self.live: dict[str, tuple[Generation, Lane, ResponseEvents]] = {}
        self._seq = itertools.count()
        """The connection's own events' sequence numbers (errors, steer failures)."""
        self.bare_cancels = 0
        self.closed = asyncio.Event()
        self._age: asyncio.Task[None] | None = None

    async def serve(self, receive: Receive, sessions: set[WsSession]) -> None:
        """Handle frames until the connection ends (None from ``receive``: the peer left)."""
        sessions.add(self)
        self._age = asyncio.create_task(self._age_limit())
        try:
            while not self.closed.is_set():
                frame = await receive()
                if frame is None:
                    break
                await self.handle(frame)
        except OSError:
            pass
        finally:
            sessions.discard(self)
            with contextlib.suppress(Exception):
                await self.stop()

    async def stop(self) -> None:
        """Cancel every task of this connection (the socket is gone)."""
        self.closed.set()
        tasks = [lane.worker for lane in self.lanes.values() if lane.worker is not None]
        if self._age is not None:
            tasks.append(self._age)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _age_limit(self) -> None:
        await asyncio.sleep(self.state.config.max_connection_age_s)
        minutes = self.state.config.max_connection_age_s / 60.0
        error = WireError(
            400, wire.CONNECTION_LIMIT_REACHED,
            f"Responses websocket connection limit reached ({minutes:g} minutes). "
            "Create a new websocket connection to continue.",
        )
        with contextlib.suppress(OSError):
            await self.send_error(error)
        await self._shutdown(1000, "connection age limit reached")

    async def _shutdown(self, code: int, reason: str, *, abort: bool = False) -> None:
        """Close (``abort``: the drop fault), then cancel every other lane worker."""
        if self.closed.is_set():
            return
        self.closed.set()
        if not (abort and self._abort is not None and self._abort()):
            with contextlib.suppress(OSError, RuntimeError):
                await self._close(code, reason)
        current = asyncio.current_task()
        for lane in self.lanes.values():
            if lane.worker is not None and lane.worker is not current:
                lane.worker.cancel()

    async def send_error(self, error: WireError, stream_id: str | None = None) -> None:
        await self._send_text(error_event(error, next(self._seq), stream_id))

    async def handle(self, frame: str | bytes) -> None:
        try:
            event = wire.parse_client_event(frame, self.state.config.max_output_tokens)
        except WireError as exc:
            await self.send_error(exc, _stream_id_of(frame))
            return
        if isinstance(event, CreateRequest):
            lane = self._lane(event.stream_id)
            try:
                lane.requests.put_nowait((event, self.bare_cancels))
            except asyncio.QueueFull:
                await self.send_error(lane_full_error(event.stream_id), event.stream_id)
        elif isinstance(event, SteerRequest):
            await self._steer(event)
        elif isinstance(event, CancelRequest):
            await self._cancel(event)

    def _lane(self, stream_id: str | None) -> Lane:
        lane = self.lanes.get(stream_id)
        if lane is None:
            lane = self.lanes[stream_id] = Lane(stream_id)
        if lane.worker is None or lane.worker.done():
            lane.worker = asyncio.create_task(self._work(lane))
        return lane

    async def _steer(self, steer: SteerRequest) -> None:
        target = steer.previous_response_id
        running = list(self.live)
        if target is None and not running:
            await self._steer_failed(steer, wire.STEER_NO_ACTIVE_RESPONSE,
                                     "no response is running on this connection")
            return
        if target is None and len(running) > 1:
            await self._steer_failed(steer, wire.STEER_INVALID_INPUT,
                                     "several responses are running: name one in "
                                     "previous_response_id")
            return
        target = running[0] if target is None else target
        entry = self.live.get(target)
        if entry is not None and entry[0].request_steer(steer.input):
            await self._send_text(entry[2].steer_accepted(self.state.new_id("steer"))[1])
        elif entry is not None or target in self.memory.finished:
            lane = entry[1].stream_id if entry is not None else self.memory.finished[target]
            await self._steer_failed(steer, wire.STEER_ALREADY_COMPLETED,
                                     f"response {target} already finished", lane, target)
        else:
            await self._steer_failed(steer, wire.STEER_RESPONSE_NOT_FOUND,
                                     f"no response {target} on this connection", None, target)

    async def _steer_failed(self, steer: SteerRequest, code: str, message: str,
                            stream_id: str | None = None, target: str | None = None) -> None:
        event: dict[str, Any] = {
            "type": wire.STEER_FAILED, "sequence_number": next(self._seq),
            "error": {"code": code, "message": message, "type": "invalid_request_error"},
            "steer": {"input": steer.raw_input,
                      "previous_response_id": target or steer.previous_response_id or ""},
        }
        if stream_id is not None:
            event["stream_id"] = stream_id
        await self._send_text(json.dumps(event))

    async def _cancel(self, cancel: CancelRequest) -> None:
        if cancel.response_id is None:
            self.bare_cancels += 1  # what is still waiting is cancelled as it starts
            for generation, _, _ in list(self.live.values()):
                generation.request_cancel()
            return
        entry = self.live.get(cancel.response_id)
        if entry is not None:
            entry[0].request_cancel()
        elif cancel.response_id not in self.memory.finished:
            await self.send_error(WireError(
                400, wire.RESPONSE_NOT_FOUND,
                f"no response {cancel.response_id} on this connection", "response_id",
            ))

    async def _work(self, lane: Lane) -> None:
        """Answer the lane's requests in order; the lane is forgotten once idle."""
        try:
            while not lane.requests.empty():
                request, queued_at = lane.requests.get_nowait()
                try:
                    await self._respond(lane, request, cancelled=queued_at < self.bare_cancels)
                except (StreamDropped, OSError, asyncio.CancelledError):
                    raise
                except Exception as exc:  # an engine bug must not kill the connection
                    await self.send_error(WireError(
                        500, "server_error", f"the engine failed: {exc!r}"[:300],
                        kind="server_error",
                    ), lane.stream_id)
        except StreamDropped:
            await self._shutdown(DROP_CLOSE_CODE, "fault: drop", abort=True)
        except OSError:  # the client went away mid-send
            self.closed.set()
        finally:
            if self.lanes.get(lane.stream_id) is lane and lane.requests.empty():
                del self.lanes[lane.stream_id]

    async def _respond(self, lane: Lane, request: CreateRequest, *, cancelled: bool) -> None:
        """Answer one request and the successors its steers make."""
        try:
            conversation = continued(self.memory.conversations, request)
        except WireError as exc:
            await self.send_error(exc, lane.stream_id)
            return
        previous = request.previous_response_id
        while True:
            response_id = self.state.new_id()
            events = ResponseEvents(response_id, request, previous_response_id=previous,
                                    stream_id=request.stream_id)
            if not request.generate:  # warm-up: a chainable id, no output
                await self._send_text(events.created()[1])
                asked = brain_request(request, conversation)
                usage = usage_object(await count_input(self.state.brain_pool, asked), 0)
                await self._send_text(events.empty_completion(usage)[1])
                self.memory.remember(lane.stream_id, response_id, conversation,
                                     store=request.store)
                self.memory.finish(response_id, lane.stream_id)
                return
            outcome = await self._generate(lane, request, response_id, events, conversation,
                                           cancelled=cancelled)
            cancelled = False  # a steer's successor was asked for after any cancel
            if outcome is None or outcome.status == "failed":
                return
            conversation = answered(conversation, outcome.text, outcome.calls)
            self.memory.remember(lane.stream_id, response_id, conversation,
                                 store=request.store)
            if not outcome.steers:
                return
            conversation = conversation + turns(tuple(outcome.steers))  # the successor
            previous = response_id

    async def _generate(
        self, lane: Lane, request: CreateRequest, response_id: str, events: ResponseEvents,
        conversation: Conversation, *, cancelled: bool = False,
    ) -> Outcome | None:
        generation = Generation(self.state, brain_request(request, conversation,
                                                          self.state.config.slips), events,
                                lambda event: self._send_text(event[1]),
                                max_output_tokens=request.max_output_tokens)
        self.live[response_id] = (generation, lane, events)
        if cancelled:
            generation.request_cancel()
        try:
            return await generation.run()
        except WireError as exc:  # refused before it started (no brain, 429)
            await self.send_error(exc, lane.stream_id)
            return None
        finally:
            del self.live[response_id]
            self.memory.finish(response_id, lane.stream_id)


def _stream_id_of(frame: str | bytes) -> str | None:
    """Best effort: echo the lane of a frame that failed validation."""
    try:
        obj = json.loads(frame)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    value = obj.get("stream_id") if isinstance(obj, dict) else None
    return value if isinstance(value, str) else None
