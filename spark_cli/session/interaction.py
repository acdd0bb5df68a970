"""The interaction model over one session: send, redirect, queue, interrupt; one turn at a time.

The TUI calls an :class:`Interaction` from key handlers and never awaits a turn: each runs as
its own task and its events go to ``sink`` at once.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any

from spark_cli.record import record
from spark_cli.session.api import ChannelError, SessionApi
from spark_cli.session.events import SessionEvent, SteerRejected, TurnFailed


@record
class TurnStarted:
    """A turn began for ``text``; ``why``: typed and sent, queued, or a redirect resent."""

    text: str
    why: str  # "sent" | "queued" | "redirect"


@record
class Redirected:
    """A message typed while the turn streamed; ``how``: "steer" (in-band) or "resend"."""

    text: str
    how: str


@record
class QueueChanged:
    """The queue now holds ``items`` (in the order they will be sent); ``paused`` after Esc."""

    items: tuple[str, ...]
    paused: bool


@record
class TurnEnded:
    """The turn's task is over (after its final ``TurnCompleted`` / ``TurnFailed``)."""

    interrupted: bool


InteractionEvent = SessionEvent | TurnStarted | Redirected | QueueChanged | TurnEnded
Sink = Callable[[InteractionEvent], None]


class Interaction:
    """One session driven from a keyboard: at most one running turn, a queue behind it.

    While a turn streams, ``submit`` redirects it (in-band steer, else stop and resend);
    Esc stops the turn and pauses the queue; edits that landed stay."""

    def __init__(self, session: SessionApi, sink: Sink, *,
                 files: Callable[[], Sequence[str]] = tuple,
                 queue: Sequence[str] = (),
                 ready: Callable[[], Awaitable[None]] | None = None) -> None:
        self.session = session
        self.sink = sink
        self.files = files
        """The files every turn carries (the front end's context set)."""
        self.ready = ready
        """Awaited before each turn (the channel is connected); raises ``ChannelError``."""
        self.queue: list[str] = list(queue)
        self.paused = bool(self.queue)
        """After Esc (or a restart) the queue waits for the user."""
        self._task: asyncio.Task[None] | None = None
        self._resend: str | None = None  # a redirect waiting for the stopped turn to end
        self._steered: list[str] = []  # steers asked and not yet answered
        self._interrupted = False
        self._side_tasks: set[asyncio.Task[None]] = set()  # redirects in flight

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    # ---- what keys do ----

    def submit(self, text: str) -> None:
        """Enter: start a turn, or redirect the running one."""
        text = text.strip()
        if not text:
            self.resume_queue()
            return
        if not self.busy:
            self.paused = False
            self._start(text, "sent")
            return
        self._task_for(self._redirect(text))

    def enqueue(self, text: str) -> None:
        """Tab: line ``text`` up behind the running turn (sent at once when idle)."""
        text = text.strip()
        if not text:
            return
        if not self.busy and not self.paused:
            self._start(text, "sent")
            return
        self.queue.append(text)
        self._queue_changed()

    def resume_queue(self) -> None:
        """Unpause the queue; when idle, its first message starts now."""
        self.paused = False
        self._queue_changed()
        self._drain()

    def edit_queue(self, items: Sequence[str]) -> None:
        """Replace the queue (reordered, edited, items removed)."""
        self.queue = [item.strip() for item in items if item.strip()]
        self._queue_changed()

    async def interrupt(self) -> bool:
        """Esc: stop the running turn now and pause the queue; False when idle."""
        if not self.busy:
            return False
        self._interrupted = True
        self._resend = None
        if self.queue:
            self.paused = True
            self._queue_changed()
        await self.session.interrupt()
        return True

    def compact(self, focus: str = "") -> bool:
        """``/compact`` now (Esc cancels it); False while a turn runs."""
        if self.busy:
            return False
        self._interrupted = False
        self._task = asyncio.get_running_loop().create_task(self._compact(focus))
        return True

    async def _compact(self, focus: str) -> None:
        try:
            if self.ready is not None:
                await self.ready()
            async for event in self.session.compact(focus):
                self.sink(event)
        except ChannelError as exc:  # could not connect: nothing changed
            self.sink(TurnFailed(exc.kind, f"compaction: {exc.message}"))
        finally:
            asyncio.get_running_loop().call_soon(self._after_turn)

    async def wait(self) -> None:
        """Until no turn runs (tests, shutdown)."""
        while self._task is not None and not self._task.done():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(self._task)

    async def aclose(self) -> None:
        """Stop whatever runs and forget the queue's task (the queue itself is the caller's)."""
        if self.busy:
            await self.session.interrupt()
            await self.wait()

    # ---- internals ----

    def _start(self, text: str, why: str) -> None:
        self._interrupted = False
        self._steered.clear()
        self.sink(TurnStarted(text, why))
        self._task = asyncio.get_running_loop().create_task(self._run(text))

    async def _run(self, text: str) -> None:
        sink = self.sink
        try:
            if self.ready is not None:
                await self.ready()
            if self._interrupted:  # Esc while it was still connecting: nothing is sent
                return
            async for event in self.session.run_turn(text, list(self.files())):
                sink(event)
                if type(event) is SteerRejected and self._steered:
                    await self._fall_back(self._steered.pop(0))
        except ChannelError as exc:  # could not connect: nothing was sent
            sink(TurnFailed(exc.kind, exc.message))
        except Exception as exc:  # a bug below us: say so in the transcript, keep the app
            sink(TurnFailed("protocol", f"the turn broke off: {exc!r}"))
        finally:
            sink(TurnEnded(self._interrupted))
            asyncio.get_running_loop().call_soon(self._after_turn)

    def _after_turn(self) -> None:
        if self.busy:
            return
        resend, self._resend = self._resend, None
        if resend is not None:
            self._start(resend, "redirect")
            return
        self._drain()

    def _drain(self) -> None:
        if self.busy or self.paused or not self.queue:
            return
        text = self.queue.pop(0)
        self._queue_changed()
        self._start(text, "queued")

    async def _redirect(self, text: str) -> None:
        if await self.session.steer(text):
            self._steered.append(text)
            self.sink(Redirected(text, "steer"))
            return
        await self._fall_back(text)

    async def _fall_back(self, text: str) -> None:
        """Stop the turn; a new one carries the partial answer and ``text``."""
        self.sink(Redirected(text, "resend"))
        self._resend = text
        if self.busy:
            await self.session.interrupt()
        else:
            self._after_turn()

    def _task_for(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._side_tasks.add(task)
        task.add_done_callback(self._side_tasks.discard)

    def _queue_changed(self) -> None:
        self.sink(QueueChanged(tuple(self.queue), self.paused))
