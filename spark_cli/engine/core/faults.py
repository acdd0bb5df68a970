"""The ``--fault`` knobs applied to one response (each token fault fires once, when the
tokens sent reach its threshold), and the per-engine seeded 429 coin."""

from __future__ import annotations

import random
import sys
from collections.abc import Awaitable, Callable

from spark_cli.engine.core.config import FaultConfig
from spark_cli.engine.core.output_items import Send
from spark_cli.engine.wire.wire_errors import too_many_requests

DROP = "drop"
STALL = "stall"
MALFORMED = "malformed"
MALFORMED_FRAME = '{"type": "response.output_text.delta", "delta": "\\u00'
"""What the malformed fault sends: truncated JSON (the rest never comes)."""


class StreamDropped(Exception):
    """The drop fault fired: the transport must close abruptly."""


class FaultPlan:
    __slots__ = ("_pending", "_stall_s")

    def __init__(self, faults: FaultConfig) -> None:
        pending: list[tuple[int, str]] = []
        if faults.drop_after_tokens is not None:
            pending.append((faults.drop_after_tokens, DROP))
        if faults.stall_after_tokens is not None and faults.stall_ms > 0:
            pending.append((faults.stall_after_tokens, STALL))
        if faults.malformed_after_tokens is not None:
            pending.append((faults.malformed_after_tokens, MALFORMED))
        pending.sort()
        self._pending = pending
        self._stall_s = faults.stall_ms / 1000.0

    def next_at(self) -> int:
        """Token count at which the next fault fires (``sys.maxsize`` if none)."""
        return self._pending[0][0] if self._pending else sys.maxsize

    def due(self, sent: int) -> list[str]:
        """Faults whose threshold ``sent`` reached (each returned once)."""
        fired: list[str] = []
        while self._pending and self._pending[0][0] <= sent:
            fired.append(self._pending.pop(0)[1])
        return fired

    async def fire(self, sent: int, send: Send,
                   sleep: Callable[[float], Awaitable[None]]) -> float:
        """Inject the faults due after ``sent`` tokens; returns the seconds a stall slept."""
        stalled = 0.0
        for fault in self.due(sent):
            if fault == DROP:
                raise StreamDropped()
            if fault == MALFORMED:
                await send((MALFORMED, MALFORMED_FRAME))
            else:
                await sleep(self._stall_s)
                stalled += self._stall_s
        return stalled


class RejectCoin:
    """The ``429:P`` fault: refuse admission with probability P, reproducibly."""

    def __init__(self, probability: float, seed: int) -> None:
        self.probability = probability
        self._random = random.Random(seed)

    def toss(self) -> None:
        if self.probability <= 0.0 or self._random.random() >= self.probability:
            return
        raise too_many_requests("rate limit reached (injected fault); try again in 0.2s", 60, 200)
