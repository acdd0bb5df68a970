"""One response being generated: queueing, absolute-schedule pacing, stop reasons."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from dataclasses import field
from typing import Any

from spark_cli.engine.brains.base import Brain, BrainCall, BrainRequest
from spark_cli.engine.core.faults import FaultPlan, StreamDropped
from spark_cli.engine.core.output_items import OutputItems, Presenter, SafePoints, Send
from spark_cli.engine.core.pieces import (
    BrainError,
    Piece,
    PieceSource,
    count_input,
    small_request,
)
from spark_cli.engine.core.state import EngineState
from spark_cli.engine.wire import responses as wire
from spark_cli.engine.wire.response_events import usage_object
from spark_cli.engine.wire.responses import InputCall, InputMessage, WireError
from spark_cli.record import record

CATCH_UP_S = 0.05
"""A stream further behind its schedule is not caught up in a burst: its schedule moves on."""
log = logging.getLogger("spark.engine")


@record
class Outcome:
    """How a generation ended: its status and text, the steers it left, its calls."""

    status: str
    text: str
    steers: list[InputMessage] = field(default_factory=list)
    calls: tuple[InputCall, ...] = ()


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class Generation:
    """One response: token ``i`` is due at ``t0 + TTFT + i / tps``; the first goes alone,
    then each wake-up (``frame_ms`` apart) sends every token due as one delta."""

    def __init__(
        self,
        state: EngineState,
        request: BrainRequest,
        events: Presenter,
        send: Send,
        *,
        max_output_tokens: int | None,
    ) -> None:
        self.state = state
        self.request = request
        self.events = events
        self.send = send
        self.max_output_tokens = max_output_tokens
        maximum = state.config.max_output_tokens
        self.limit = min(max_output_tokens or maximum, maximum)
        self.phase = "pending"  # pending -> queued -> running -> done
        self.cancel_requested = False
        self.steers: list[InputMessage] = []
        self.input_tokens = 0
        self._reserved = 0
        self._wake: asyncio.Future[None] | None = None
        self._sent = 0
        self._started = False
        self._task: asyncio.Task[Any] | None = None
        self.pacing = state.config.pacing("fast")
        """Set by :meth:`run` once the brain is made (the deep brain has its own pace)."""
        self._t0: float | None = None
        self.items = OutputItems(events, send, state.new_id)

    def request_cancel(self) -> None:
        self.cancel_requested = True
        if self.phase == "queued" and self._task is not None:
            self._task.cancel()
        elif self._wake is not None:
            _resolve(self._wake)

    def request_steer(self, messages: tuple[InputMessage, ...]) -> bool:
        """Queue steering input; False when the response no longer accepts it."""
        if self.phase == "done":
            return False
        self.steers.extend(messages)
        if self._wake is not None:
            _resolve(self._wake)
        return True

    def usage(self, output_tokens: int) -> dict[str, Any]:
        return usage_object(self.input_tokens, output_tokens)

    async def run(self) -> Outcome:
        """Make the brain, count, admit (500 or 429 before any event), queue, generate."""
        arrived = asyncio.get_running_loop().time()
        brain = await self.state.brain(self.request.model)
        self.pacing = self.state.config.pacing(getattr(brain, "pace", "fast"))
        self.input_tokens = await count_input(self.state.brain_pool, self.request)
        estimate = self.input_tokens + (self.max_output_tokens or 0)
        self._reserved = self.state.admit(estimate)
        wafer = self.state.wafer
        try:
            must_wait = wafer.admit()
        except WireError:
            self._settle(0)
            raise
        self._t0 = None if must_wait else arrived
        self._task = asyncio.current_task()
        self.state.generating += 1
        try:
            await self.send(self.events.created("queued" if must_wait else "in_progress"))
            self.phase = "queued"
            try:
                async with wafer.slot(lambda at: self.send(self.events.queued(at))):
                    self.phase = "running"
                    try:
                        return await self._generate(brain)
                    except (StreamDropped, OSError):
                        raise
                    except Exception as exc:  # an engine bug: still a terminal event
                        log.exception("generation failed")
                        return await self._fail(
                            f"the engine failed: {type(exc).__name__}: {exc}"[:300])
            except asyncio.CancelledError:
                if self.phase != "queued" or not self.cancel_requested:
                    raise
                if self._task is not None:
                    self._task.uncancel()
                # never started: no item was opened, so only the terminal event
                self.phase = "done"
                await self.send(self.events.finished("", "incomplete", self.usage(0),
                                                     wire.REASON_CANCELLED)[-1])
                return Outcome("incomplete", "", self.steers)
            except WireError as exc:  # the queue filled up between admit and slot
                return await self._fail(exc.message, exc.code)
        finally:
            self.state.generating -= 1
            self.phase = "done"
            self._settle(self.input_tokens + self._sent if self._started else 0)

    def _settle(self, used: int) -> None:
        if self.state.bucket is not None and self._reserved:
            self.state.bucket.settle(self._reserved, used)
            self._reserved = 0

    async def _sleep_until(self, when: float) -> None:
        loop = asyncio.get_running_loop()
        wake = self._wake = loop.create_future()
        handle = loop.call_at(when, _resolve, wake)
        try:
            await wake
        finally:
            handle.cancel()
            self._wake = None

    def _answer(self, brain: Brain) -> Iterator[str | BrainCall]:
        """The brain's answer, asked on the first pull (so even ``answer()`` runs off-loop)."""
        yield from brain.answer(self.request)

    async def _generate(self, brain: Brain) -> Outcome:
        loop = asyncio.get_running_loop()
        t0 = self._t0 if self._t0 is not None else loop.time()  # queued: from the slot
        start = t0 + self.pacing.ttft_ms / 1000.0
        if getattr(brain, "inline", False) or small_request(self.request,
                                                            getattr(brain, "inline_below", 0)):
            source = PieceSource(iter(brain.answer(self.request)))
        else:
            source = PieceSource(self._answer(brain), self.state.offload)
        source.prefetch()  # the brain plans while the time to first token runs
        self._started = True
        try:
            for event in self.events.started():
                await self.send(event)
            if not self.request.tools:  # the message opens at once, as it always did
                await self.items.open_text()
            return await self._pace(source, start)
        except BrainError as exc:  # a broken brain fails this response only
            return await self._fail(f"the brain failed: {exc}")
        finally:
            source.close()

    async def _pace(self, source: PieceSource, start: float) -> Outcome:
        """Send every token as it falls due until the response ends."""
        config = self.state.config
        loop = asyncio.get_running_loop()
        tps = self.pacing.tps
        most = 1 if config.per_token else None  # tokens per delta
        slack = max(CATCH_UP_S, config.frame_ms / 1000.0)
        limit = self.limit
        faults = FaultPlan(config.faults)
        safe = SafePoints()
        status, reason = "completed", None
        while True:
            stop = self._stop_reason(safe)
            if stop is not None:
                status, reason = "incomplete", stop
                break
            now = loop.time()
            if self._sent:  # the next token at most ``CATCH_UP_S`` overdue: never a burst
                start = max(start, now - self._sent / tps - slack)
            due = int((now - start) * tps) + 1 if now >= start else 0
            n = min(due, limit, faults.next_at()) - self._sent
            if most is not None or not self._sent:  # the first delta carries one token
                n = min(n, 1)
            if n > 0:
                count, steered = await self._send_pieces(await source.take(n), source, safe)
                if steered:
                    status, reason = "incomplete", wire.REASON_STEERED
                    break
                if count < n or not await source.has_more():
                    break
            if self._sent >= limit:
                if await source.has_more():
                    status, reason = "incomplete", wire.REASON_MAX_OUTPUT_TOKENS
                break
            start += await faults.fire(self._sent, self.send,
                                       lambda s: self._sleep_until(loop.time() + s))
            if not self._sent:  # the first token is due at t0 + TTFT exactly, not a frame later
                await self._sleep_until(start)
                continue
            await self._sleep_until(await self._next_wake(source, start))
        self.phase = "done"
        text = "".join(self.items.parts)
        for event in self.events.finished(text, status, self.usage(self._sent), reason):
            await self.send(event)
        return Outcome(status, text, self.steers, self.events.calls)

    def _stop_reason(self, safe: SafePoints) -> str | None:
        """``cancelled`` when asked; ``steered`` when a steer waits at a safe point."""
        if self.cancel_requested:
            return wire.REASON_CANCELLED
        items = self.items
        if self.steers and (items.at_call_boundary or (
                not items.in_calls and safe.at_line_start and safe.outside)):
            return wire.REASON_STEERED
        return None

    async def _send_pieces(self, taken: list[Piece], source: PieceSource,
                           safe: SafePoints) -> tuple[int, bool]:
        """Send the pieces as one frame: (how many were sent, whether a steer cut it)."""
        if source.marked and (self.items.in_calls or any(type(p) is not str for p in taken)):
            count = await self.items.frame(taken, safe)
            self._sent += count
            return count, False
        pieces: list[str] = taken  # type: ignore[assignment]  # text only here
        text = "".join(pieces)
        count, cut = len(pieces), None
        if self.steers:
            cut = safe.steer_cut(pieces, text)
            if cut is not None:
                count, text = cut
        else:
            safe.feed(text)
        if text:
            await self.items.text(text)
        self._sent += count
        return count, cut is not None

    async def _next_wake(self, source: PieceSource, start: float) -> float:
        """The next token's due time, a frame away at least unless the last is due sooner."""
        config = self.state.config
        frame = 0.0 if config.per_token else config.frame_ms / 1000.0
        tps, limit, sent = self.pacing.tps, self.limit, self._sent
        left = await source.left_within(int(frame * tps) + 1)  # the next frame's at most
        last = limit if left is None else min(limit, sent + left)
        frame_end = min(asyncio.get_running_loop().time() + frame, start + (last - 1) / tps)
        return max(start + sent / tps, frame_end)

    async def _fail(self, message: str, code: str = "server_error") -> Outcome:
        self.phase = "done"
        await self.send(self.events.failed(code, message, self.usage(self._sent)))
        return Outcome("failed", "")

