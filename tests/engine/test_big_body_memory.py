"""A 50 MB body costs the engine no memory: refused from its Content-Length, never read.

The engine runs in its own process (so its resident memory is its own). Four
50 MB bodies at once on both POST routes must not raise its peak RSS by more
than a few MB (they are refused before a byte is read); the same as chunked
uploads (read up to the limit, in pieces that are freed) must leave its RSS
within a few MB of where it was. File descriptors end no higher than they were
(counted once the warm-up connection is released).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx

from spark_cli.bench.engine_process import start_engine

BODY = b" " * (50 * 1024 * 1024)
SLACK = 6 * 1024 * 1024
AT_ONCE = 4


async def _chunked() -> AsyncIterator[bytes]:
    view = memoryview(BODY)
    for start in range(0, len(BODY), 1 << 20):
        yield bytes(view[start:start + (1 << 20)])


async def _send_all(url: str, token: str, *, chunked: bool) -> list[int]:
    headers = {"authorization": f"Bearer {token}", "content-type": "application/json"}
    async with httpx.AsyncClient(base_url=url, trust_env=False, timeout=60) as http:
        async def one(path: str) -> int:
            body = _chunked() if chunked else BODY
            return (await http.post(path, content=body, headers=headers)).status_code

        paths = ["/v1/responses", "/v1/chat/completions"] * (AT_ONCE // 2)
        return list(await asyncio.gather(*(one(path) for path in paths)))


def _settled_fds(engine: Any) -> int:
    """The engine's open descriptors once two reads 0.1 s apart agree (at most ~3 s): a
    connection the client just closed is released by the server a moment later."""
    last = engine.open_fds()
    for _ in range(30):
        time.sleep(0.1)
        now = engine.open_fds()
        if now == last:
            return now
        last = now
    return last


def test_fifty_megabyte_bodies_leave_the_engine_memory_and_fds_as_they_were() -> None:
    engine = start_engine("t", "--brain", "lorem")
    try:
        with httpx.Client(base_url=engine.url, trust_env=False, timeout=10) as http:
            for _ in range(3):  # warm: imports, first request, buffers
                http.post("/v1/responses", headers={"authorization": "Bearer t"},
                          json={"model": "m", "input": "x", "max_output_tokens": 5})
        fds = _settled_fds(engine)  # the warm-up's socket may still be closing
        rss, peak = engine.rss_bytes(), engine.peak_rss_bytes()
        assert asyncio.run(_send_all(engine.url, "t", chunked=False)) == [413] * AT_ONCE
        peaked = engine.peak_rss_bytes() - peak
        assert peaked < SLACK, f"the engine's peak grew by {peaked / 2**20:.1f} MiB"
        assert asyncio.run(_send_all(engine.url, "t", chunked=True)) == [413] * AT_ONCE
        time.sleep(0.2)
        grown = engine.rss_bytes() - rss
        assert grown < SLACK, f"the engine grew by {grown / 2**20:.1f} MiB"
        assert _settled_fds(engine) <= fds
    finally:
        engine.stop()
