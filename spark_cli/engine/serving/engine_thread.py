"""The engine on a thread and event loop of its own, so whatever the in-process caller does
without awaiting never holds back its reading and pacing."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import AsyncIterator
from typing import Any

from spark_cli.engine.core.config import EngineConfig
from spark_cli.engine.serving.server import RunningEngine, run_engine

THREAD_NAME = "spark-engine"


@contextlib.asynccontextmanager
async def run_engine_in_thread(config: EngineConfig, *, http: bool = False,
                               **options: Any) -> AsyncIterator[RunningEngine]:
    """:func:`run_engine` on a thread and loop of its own; ``engine.state``: read only."""
    started: concurrent.futures.Future[RunningEngine] = concurrent.futures.Future()
    finished: concurrent.futures.Future[None] = concurrent.futures.Future()
    for future in (started, finished):
        future.set_running_or_notify_cancel()  # the caller's cancel never reaches it
    requested = threading.Event()
    waiting: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []  # the engine loop's

    def stop() -> None:
        requested.set()
        for loop, stopping in list(waiting):
            with contextlib.suppress(RuntimeError):  # its loop already ended
                loop.call_soon_threadsafe(stopping.set)

    async def serve() -> None:
        stopping = asyncio.Event()
        waiting.append((asyncio.get_running_loop(), stopping))  # before ``requested`` is read
        async with run_engine(config, http=http, **options) as engine:
            started.set_result(engine)
            if not requested.is_set():  # else it was asked before it was waiting
                await stopping.wait()

    def main() -> None:
        error: BaseException | None = None
        try:
            asyncio.run(serve())
        except BaseException as exc:  # a failed start or stop goes to the caller
            error = exc
        if not started.done():
            started.set_exception(error or RuntimeError("the engine thread ended"))
        if error is None:
            finished.set_result(None)
        else:
            finished.set_exception(error)

    thread = threading.Thread(target=main, name=THREAD_NAME, daemon=True)
    thread.start()
    try:
        engine = await asyncio.wrap_future(started)
    except BaseException:
        stop()
        with contextlib.suppress(BaseException):  # the start's own error is the one to raise
            await asyncio.shield(asyncio.wrap_future(finished))
        if finished.done():
            thread.join()
        raise
    try:
        yield engine
    finally:
        stop()
        try:
            await asyncio.shield(asyncio.wrap_future(finished))
        finally:
            if finished.done():  # (not when the caller was cancelled meanwhile)
                thread.join()  # it has settled its last future: it is ending

