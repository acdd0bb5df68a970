"""The engine keeps its pace as a client measures it: from the first delta over an
answer of 1.5 s (3,000 tokens batched, 750 with ``--per-token``), near ``--tps``, read by
the official ``openai`` SDK. The brain is slow to its first piece by a third of the
answer's time, so a schedule that caught up after a late first delta would stream 50%
fast: the 15% bound sees it, and leaves room for a client that shares a loaded machine.
One ratio within one run: the tokens after the first delta over the time from it to the
last."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from openai import AsyncOpenAI

TOKENS = 3_000
TPS = 2_000
PER_TOKEN_TPS = 500
"""One SSE event per token: a rate the SDK, parsing each event in this same process, reads
on a loaded machine too (the pace logic is the same at any rate)."""
LATE_FIRST_S = 0.5
"""The brain's own delay before its first piece (past the TTFT): a schedule that caught up
would send this many seconds' tokens in a burst, a third of the answer at either rate."""


class SlowStartBrain:
    """One-token pieces, the first one late (the brain "plans" in its pool thread)."""

    name = "slow-start"

    def __init__(self, late_s: float, tokens: int) -> None:
        self.late_s = late_s
        self.tokens = tokens

    def answer(self, request: Any) -> Iterator[str]:
        time.sleep(self.late_s)
        for i in range(self.tokens):
            yield f" w{i % 10}"


@pytest.mark.parametrize(("per_token", "tps"), [(False, TPS), (True, PER_TOKEN_TPS)])
async def test_the_rate_from_the_first_delta_is_tps(engine_factory: Any, per_token: bool,
                                                    tps: int) -> None:
    tokens = TOKENS * tps // TPS
    engine = await engine_factory(brains=lambda model: SlowStartBrain(LATE_FIRST_S, tokens),
                                  tps=tps, ttft_ms=0, per_token=per_token,
                                  max_output_tokens=tokens)
    client = AsyncOpenAI(base_url=engine.url + "/v1", api_key=engine.token, max_retries=0)
    stamps: list[tuple[float, int]] = []
    async with client:
        stream = await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "go"}], stream=True,
            max_tokens=tokens)
        async for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                stamps.append((time.perf_counter(), chunk.choices[0].delta.content.count(" ")))
    assert sum(n for _, n in stamps) == tokens
    (first, first_tokens), (last, _) = stamps[0], stamps[-1]
    assert first_tokens == 1  # the first delta carries one token, however late it left
    rate = (tokens - first_tokens) / (last - first)
    assert abs(rate / tps - 1) < 0.15, f"{rate:.0f} tok/s for --tps {tps}"
