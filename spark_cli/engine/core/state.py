"""What every connection of one running engine shares: the configuration, the wafer, the
token bucket, the 429 coin, the brains and their thread pool, the stored conversations."""

from __future__ import annotations

import asyncio
import itertools
import os
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from spark_cli.engine.brains.base import Brain, BrainTurn
from spark_cli.engine.core.capacity import TokenBucket, Wafer
from spark_cli.engine.core.config import BRAIN_THREADS, EngineConfig
from spark_cli.engine.core.faults import RejectCoin
from spark_cli.engine.wire.responses import WireError

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
