"""What every connection and HTTP request of one running engine shares.

The configuration, the wafer's slots and queue, the optional token bucket,
the seeded 429 coin, the brain factory, a bounded store of ``store: true``
conversations (for HTTP chaining), and the ids of live generations.
"""

from __future__ import annotations

import itertools
import os
from collections import OrderedDict

from spark_cli.engine.brain_lookup import BrainFactory
from spark_cli.engine.brains.base import BrainTurn
from spark_cli.engine.capacity import TokenBucket, Wafer
from spark_cli.engine.config import EngineConfig
from spark_cli.engine.faults import RejectCoin

Conversation = tuple[BrainTurn, ...]
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
        self._ids = itertools.count(1)
        self._prefix = os.urandom(4).hex()

    def new_id(self, kind: str = "resp") -> str:
        return f"{kind}_{self._prefix}{next(self._ids):08x}"

    def admit(self) -> None:
        """Refuse a new request now (429) when a limit says so."""
        self.coin.toss()
        if self.bucket is not None:
            self.bucket.check()

    def store(self, response_id: str, conversation: Conversation) -> None:
        self.stored[response_id] = conversation
        while len(self.stored) > STORE_LIMIT:
            self.stored.popitem(last=False)
