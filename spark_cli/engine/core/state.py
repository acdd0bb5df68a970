"""What every connection of one running engine shares: the configuration, the brains and
their thread pool, the stored conversations, the 429 coin, and the capacity: :class:`Wafer`
(``max_streams`` slots, a FIFO queue told its positions, a full queue a 429) and
:class:`TokenBucket` (the optional tokens-per-minute limit)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import math
import os
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor

from spark_cli.engine.brains.base import Brain, BrainTurn
from spark_cli.engine.core.config import BRAIN_THREADS, EngineConfig
from spark_cli.engine.core.faults import RejectCoin
from spark_cli.engine.wire.responses import WireError
from spark_cli.engine.wire.wire_errors import RATE_LIMIT_EXCEEDED, too_many_requests

Conversation = tuple[BrainTurn, ...]
BrainFactory = Callable[[str], Brain]
"""Model name -> brain (the server's hook; tests pass their own)."""
STORE_LIMIT = 1024
"""Stored (``store: true``) conversations kept; the oldest are forgotten."""


class EngineState:
    def __init__(self, config: EngineConfig, brains: BrainFactory) -> None:
        self.config = config
        self.brains = brains
        self.wafer = Wafer(config.max_streams, config.queue)
        self.bucket = TokenBucket(config.tpm) if config.tpm else None
        self.coin = RejectCoin(config.faults.http_429_probability, config.faults.seed)
        self.stored: OrderedDict[str, Conversation] = OrderedDict()
        self.generating = 0
        """Generations whose task is alive (queued or streaming); tests watch it."""
        self.brain_pool = ThreadPoolExecutor(BRAIN_THREADS, thread_name_prefix="spark-brain")
        self._ids = itertools.count(1)
        self._prefix = os.urandom(4).hex()

    def new_id(self, kind: str = "resp") -> str:
        return f"{kind}_{self._prefix}{next(self._ids):08x}"

    def admit(self, estimate: int) -> int:
        """Raise 429 when a limit says so; else the tokens reserved for ``estimate``."""
        self.coin.toss()
        return self.bucket.reserve(estimate) if self.bucket is not None else 0

    async def brain(self, model: str) -> Brain:
        """The brain answering ``model`` (500 when it cannot be made), made off the loop."""
        brains = self.brains
        loaded = getattr(brains, "loaded", None)
        try:
            if loaded is None or loaded(model):
                return brains(model)
            return await asyncio.get_running_loop().run_in_executor(self.brain_pool, brains,
                                                                    model)
        except Exception as exc:
            raise WireError(500, "server_error", f"no brain: {exc}",
                            kind="server_error") from None

    def warm(self, model: str = "") -> None:
        """Start making ``model``'s brain in the pool now (returns at once; any thread)."""
        loaded = getattr(self.brains, "loaded", None)
        if loaded is not None and not loaded(model):
            self.brain_pool.submit(self.brains, model)

    async def offload(self, work: Callable[[], None]) -> None:
        await asyncio.get_running_loop().run_in_executor(self.brain_pool, work)

    def close(self) -> None:
        """Stop the brain pool (work still running finishes in its thread)."""
        self.brain_pool.shutdown(wait=False, cancel_futures=True)

    def store(self, response_id: str, conversation: Conversation) -> None:
        self.stored[response_id] = conversation
        while len(self.stored) > STORE_LIMIT:
            self.stored.popitem(last=False)


PositionCallback = Callable[[int], Awaitable[None]]


class _Waiter:
    __slots__ = ("granted", "wake")

    def __init__(self) -> None:
        self.granted = False
        self.wake = asyncio.Event()


class Wafer:
    def __init__(self, max_streams: int, queue: int) -> None:
        self.max_streams = max_streams
        self.queue_size = queue
        self.active = 0
        self._waiting: deque[_Waiter] = deque()

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def admit(self) -> bool:
        """Raise 429 when neither a slot nor a queue place is free; True = must wait."""
        if self.active < self.max_streams and not self._waiting:
            return False
        if len(self._waiting) >= self.queue_size:
            raise too_many_requests(f"the engine is at capacity ({self.max_streams} generating, "
                                    f"{self.queue_size} queued); try again in 1s",
                                    self.max_streams + self.queue_size)
        return True

    @contextlib.asynccontextmanager
    async def slot(self, on_position: PositionCallback) -> AsyncIterator[None]:
        """Hold one generation slot; waits in FIFO order, reporting positions."""
        if self.admit():  # raises when the queue is full too
            await self._wait(on_position)
        else:
            self.active += 1
        try:
            yield
        finally:
            self._release()

    async def _wait(self, on_position: PositionCallback) -> None:
        waiter = _Waiter()
        self._waiting.append(waiter)
        try:
            position = len(self._waiting)
            await on_position(position)
            while True:
                await waiter.wake.wait()
                waiter.wake.clear()
                if waiter.granted:
                    return
                now = self._waiting.index(waiter) + 1
                if now != position:
                    position = now
                    await on_position(position)
        except BaseException:
            if waiter.granted:
                self._release()
            else:
                self._waiting.remove(waiter)
                self._moved()
            raise

    def _release(self) -> None:
        self.active -= 1
        if self._waiting and self.active < self.max_streams:
            waiter = self._waiting.popleft()
            waiter.granted = True
            self.active += 1
            waiter.wake.set()
            self._moved()

    def _moved(self) -> None:
        for waiter in self._waiting:
            waiter.wake.set()


class TokenBucket:
    """``tpm`` tokens per minute, refilled continuously; settling may take it below zero."""

    def __init__(self, tpm: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.tpm = tpm
        self._clock = clock
        self._level = float(tpm)
        self._at = clock()

    def _refill(self) -> float:
        now = self._clock()
        self._level = min(float(self.tpm), self._level + (now - self._at) * self.tpm / 60.0)
        self._at = now
        return self._level

    def _refusal(self, message: str, wait_s: float | None) -> WireError:
        level = self._refill()
        full_s = max(0.0, self.tpm - level) * 60.0 / self.tpm
        headers = {
            "x-ratelimit-limit-tokens": str(self.tpm),
            "x-ratelimit-remaining-tokens": str(max(0, int(level))),
            "x-ratelimit-reset-tokens": f"{full_s:.3f}s",
        }
        if wait_s is not None:
            headers["retry-after-ms"] = str(max(1, math.ceil(wait_s * 1000)))
        return WireError(429, RATE_LIMIT_EXCEEDED, message,
                              kind="rate_limit_error", headers=headers)

    def reserve(self, tokens: int) -> int:
        """Take ``tokens`` (at least 1) from the bucket, or raise 429; returns what was taken."""
        need = max(1, tokens)
        if need > self.tpm:
            raise self._refusal(
                f"request too large for the tokens per minute limit: {need} tokens requested "
                f"(input + max_output_tokens), the limit is {self.tpm} tpm; reduce the input "
                "or max_output_tokens", None)
        level = self._refill()
        if level < need:
            wait_s = (need - level) * 60.0 / self.tpm
            raise self._refusal(
                f"tokens per minute limit reached ({self.tpm} tpm): {need} tokens requested, "
                f"{max(0, int(level))} available; try again in {wait_s:.2f}s", wait_s)
        self._level -= need
        return need

    def settle(self, reserved: int, used: int) -> None:
        """The request used ``used`` tokens of the ``reserved`` ones (or more)."""
        self._refill()
        self._level += reserved - used

    @property
    def remaining(self) -> int:
        return max(0, int(self._refill()))
