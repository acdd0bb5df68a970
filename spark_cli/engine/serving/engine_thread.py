"""The engine on a thread of its own: its own event loop, so the caller's loop never delays it.

``spark edit`` and the TUI run their engine in-process. On the caller's event
loop, whatever the caller does without awaiting (loading its edit parser right
after the request left, painting the TUI) would hold the engine's reading and
pacing back: the request would wait there before its time to first token even
starts. On its own thread the engine behaves like the separate server it plays:
it reads a request as soon as it arrives and paces on schedule (threads share
the GIL, so the caller's pure-Python work still slows it by at most a switch
interval at a time).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from typing import Any

from spark_cli.engine.core.config import EngineConfig
from spark_cli.engine.serving.server import RunningEngine, run_engine

THREAD_NAME = "spark-engine"


def _settle(loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any], result: Any = None,
            error: BaseException | None = None) -> None:
    """Resolve ``future`` (of ``loop``) from another thread, unless the loop is gone."""

    def settle() -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    with contextlib.suppress(RuntimeError):  # the caller's loop closed: nobody waits
        loop.call_soon_threadsafe(settle)


@contextlib.asynccontextmanager
async def run_engine_in_thread(config: EngineConfig, *, http: bool = False,
                               **options: Any) -> AsyncIterator[RunningEngine]:
    """:func:`run_engine` (``http`` and ``options`` as there) on a daemon thread with its own
    event loop, until the block exits.

    :func:`run_engine_in_thread` keeps :func:`run_engine`'s contract (the same
    :class:`RunningEngine`, ``ValueError`` for a bad brain spec and ``OSError`` for a
    port that cannot be bound, raised in the caller) and stops the engine when the
    block exits (an error while stopping is raised there too). ``engine.state`` lives
    on the engine's thread: read its counters only.
    """
    caller = asyncio.get_running_loop()
    started: asyncio.Future[RunningEngine] = caller.create_future()
    finished: asyncio.Future[None] = caller.create_future()
    stop = _Stop()

    async def serve() -> None:
        stopping = stop.attach()
        async with run_engine(config, http=http, **options) as engine:
            _settle(caller, started, engine)
            if not stop.requested.is_set():  # else it was asked before attach saw it
                await stopping.wait()

    def main() -> None:
        error: BaseException | None = None
        try:
            asyncio.run(serve())
        except BaseException as exc:  # a failed start or stop goes to the caller
            error = exc
        _settle(caller, started, error=error or RuntimeError("the engine thread ended"))
        _settle(caller, finished, error=error)

    thread = threading.Thread(target=main, name=THREAD_NAME, daemon=True)
    thread.start()
    try:
        engine = await started
    except BaseException:
        stop.request()
        with contextlib.suppress(BaseException):  # the start's own error is the one to raise
            await asyncio.shield(finished)
        if finished.done():
            thread.join()
        raise
    try:
        yield engine
    finally:
        stop.request()
        try:
            await asyncio.shield(finished)
        finally:
            if finished.done():  # (not when the caller was cancelled meanwhile)
                thread.join()  # it has settled its last future: it is ending


class _Stop:
    """Asks the engine's loop to stop, from the caller's thread, whenever it is asked."""

    def __init__(self) -> None:
        self.requested = threading.Event()
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []

    def attach(self) -> asyncio.Event:
        """The engine loop's event to wait on (registered before ``requested`` is read)."""
        stopping = asyncio.Event()
        self._waiters.append((asyncio.get_running_loop(), stopping))
        return stopping

    def request(self) -> None:
        self.requested.set()
        for loop, stopping in list(self._waiters):
            with contextlib.suppress(RuntimeError):  # its loop already ended
                loop.call_soon_threadsafe(stopping.set)
