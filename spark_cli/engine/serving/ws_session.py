"""One WebSocket connection on ``/v1/responses``: client events in, response events out.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

from spark_cli.engine.core.faults import StreamDropped
from spark_cli.engine.core.generation import Generation, Outcome, count_input
from spark_cli.engine.core.state import Conversation, EngineState
from spark_cli.engine.serving.conversations import (
    Lane,
    Memory,
    answered,
    brain_request,
    check_outputs,
    lane_full_error,
    turns,
)
from spark_cli.engine.wire import responses as wire
from spark_cli.engine.wire.response_events import ResponseEvents
from spark_cli.engine.wire.responses import CancelRequest, CreateRequest, SteerRequest, WireError
from spark_cli.engine.wire.wire_errors import check_output_limit

SendText = Callable[[str], Awaitable[None]]
Close = Callable[[int, str], Awaitable[None]]
Receive = Callable[[], Awaitable[str | bytes | None]]
Abort = Callable[[], bool]
"""Drops the connection without a close frame; False when the server cannot."""
DROP_CLOSE_CODE = 1011
"""Only when the transport cannot be aborted: the drop fault then closes with 1011."""


class WsSession:
    """``response.create`` goes to its lane's worker (in order per lane);
    ``response.steer`` and the ``response.cancel`` extension act at once on a
    live response; a ``response.cancel`` without an id also cancels the requests
    already waiting in a lane (each starts, then ends cancelled at once), so a
    create followed at once by a bare cancel never streams. Bad frames get an
    ``error`` event and the connection stays usable; ``max_output_tokens`` above
    the engine's maximum is refused (:func:`~spark_cli.engine.wire.wire_errors.check_output_limit`),
    and a lane with too many requests waiting answers 429. The connection ends at its maximum age
    (``websocket_connection_limit_reached``, close 1000) or when the drop fault
    fires (the transport is aborted: no close frame, the client sees 1006);
    closing it cancels every task of the connection at once.
    """

    def __init__(self, state: EngineState, send_text: SendText, close: Close,
                 abort: Abort | None = None) -> None:
        self.state = state
        self._send_text = send_text
        self._close = close
        self._abort = abort
        self.lanes: dict[str | None, Lane] = {}
        self.memory = Memory()
        self.live: dict[str, tuple[Generation, Lane, ResponseEvents]] = {}
        self.seq = 0
        self.bare_cancels = 0
        """How many ``response.cancel`` frames without an id arrived so far."""
        self._queued_at: dict[int, int] = {}
        """id() of a waiting ``CreateRequest`` -> ``bare_cancels`` when it was queued."""
        self.closed = asyncio.Event()
        self._age: asyncio.Task[None] | None = None

    # --- lifecycle --------------------------------------------------------------------

    async def serve(self, receive: Receive, sessions: set[WsSession]) -> None:
        """Handle the frames ``receive`` returns (None: the peer left) until the connection
        ends, listed in ``sessions`` (which a server stops at shutdown) meanwhile."""
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
            await self._send_text(wire.error_event(error, self._next_seq()))
        await self._shutdown(1000, "connection age limit reached")

    async def _shutdown(self, code: int, reason: str) -> None:
        if self.closed.is_set():
            return
        self.closed.set()
        with contextlib.suppress(OSError, RuntimeError):
            await self._close(code, reason)
        self._cancel_workers()

    async def _drop(self) -> None:
        """The drop fault: the connection ends abruptly (no close frame)."""
        if self.closed.is_set():
            return
        if self._abort is None or not self._abort():
            await self._shutdown(DROP_CLOSE_CODE, "fault: drop")
            return
        self.closed.set()
        self._cancel_workers()

    def _cancel_workers(self) -> None:
        """Cancel every lane's worker but the task running this."""
        current = asyncio.current_task()
        for lane in self.lanes.values():
            if lane.worker is not None and lane.worker is not current:
                lane.worker.cancel()

    def _next_seq(self) -> int:
        seq = self.seq
        self.seq += 1
        return seq

    async def send_error(self, error: WireError, stream_id: str | None = None) -> None:
        await self._send_text(wire.error_event(error, self._next_seq(), stream_id))

    # --- client events ----------------------------------------------------------------

    async def handle(self, frame: str | bytes) -> None:
        try:
            event = wire.parse_client_event(frame)
        except WireError as exc:
            await self.send_error(exc, _stream_id_of(frame))
            return
        if isinstance(event, CreateRequest):
            try:
                check_output_limit(event.max_output_tokens, "max_output_tokens",
                                   self.state.config.max_output_tokens)
            except WireError as exc:
                await self.send_error(exc, event.stream_id)
                return
            lane = self._lane(event.stream_id)
            try:
                lane.requests.put_nowait(event)
            except asyncio.QueueFull:
                await self.send_error(lane_full_error(event.stream_id), event.stream_id)
            else:
                self._queued_at[id(event)] = self.bare_cancels
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
        if target is None:
            running = list(self.live)
            if len(running) != 1:
                code = wire.STEER_NO_ACTIVE_RESPONSE if not running else wire.STEER_INVALID_INPUT
                message = ("no response is running on this connection" if not running else
                           "several responses are running: name one in previous_response_id")
                await self._steer_failed(steer, code, message, None)
                return
            target = running[0]
        entry = self.live.get(target)
        if entry is None:
            if target in self.memory.finished:
                await self._steer_failed(steer, wire.STEER_ALREADY_COMPLETED,
                                         f"response {target} already finished",
                                         self.memory.finished[target], target)
            else:
                await self._steer_failed(steer, wire.STEER_RESPONSE_NOT_FOUND,
                                         f"no response {target} on this connection", None, target)
            return
        generation, lane, events = entry
        if not generation.request_steer(steer.input):
            await self._steer_failed(steer, wire.STEER_ALREADY_COMPLETED,
                                     f"response {target} already finished", lane.stream_id, target)
            return
        await self._send_text(events.steer_accepted(self.state.new_id("steer"))[1])

    async def _steer_failed(
        self, steer: SteerRequest, code: str, message: str, stream_id: str | None,
        target: str | None = None,
    ) -> None:
        event: dict[str, Any] = {
            "type": wire.STEER_FAILED, "sequence_number": self._next_seq(),
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

    # --- the lane worker ----------------------------------------------------------------

    async def _work(self, lane: Lane) -> None:
        """Answer the lane's requests in order; the task ends when the lane is idle and
        the lane is forgotten (``_lane`` makes a new one for the next request)."""
        try:
            while not lane.requests.empty():
                request = lane.requests.get_nowait()
                queued_at = self._queued_at.pop(id(request), self.bare_cancels)
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
            await self._drop()
        except OSError:  # the client went away mid-send
            self.closed.set()
        finally:
            if self.lanes.get(lane.stream_id) is lane and lane.requests.empty():
                del self.lanes[lane.stream_id]

    async def _respond(self, lane: Lane, request: CreateRequest, *, cancelled: bool) -> None:
        """Answer one request (and the successors its steers make); ``cancelled``: a bare
        ``response.cancel`` came while it waited."""
        history = self.memory.resolve(request.previous_response_id)
        if history is None:
            await self.send_error(WireError(
                400, wire.PREVIOUS_RESPONSE_NOT_FOUND,
                f"Previous response with id '{request.previous_response_id}' not found.",
                "previous_response_id",
            ), lane.stream_id)
            return
        conversation = history + turns(request.input)
        try:
            check_outputs(conversation)
        except WireError as exc:
            await self.send_error(exc, lane.stream_id)
            return
        previous = request.previous_response_id
        while True:
            response_id = self.state.new_id()
            events = ResponseEvents(
                response_id, request.model, stream_id=request.stream_id,
                previous_response_id=previous, instructions=request.instructions,
                max_output_tokens=request.max_output_tokens, tools=request.tools,
                tool_choice=request.tool_choice.mode,
                parallel_tool_calls=request.parallel_tool_calls,
            )
            if not request.generate:
                await self._warm_up(lane, request, response_id, events, conversation)
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

    async def _warm_up(
        self, lane: Lane, request: CreateRequest, response_id: str, events: ResponseEvents,
        conversation: Conversation,
    ) -> None:
        await self._send_text(events.created()[1])
        input_tokens = await count_input(self.state, brain_request(request, conversation))
        usage = wire.usage_object(input_tokens, 0)
        await self._send_text(events.empty_completion(usage)[1])
        self.memory.remember(lane.stream_id, response_id, conversation, store=request.store)
        self.memory.finish(response_id, lane.stream_id)

    async def _generate(
        self, lane: Lane, request: CreateRequest, response_id: str, events: ResponseEvents,
        conversation: Conversation, *, cancelled: bool = False,
    ) -> Outcome | None:
        generation = Generation(self.state, brain_request(request, conversation), events,
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
