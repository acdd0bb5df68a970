"""A 50 MB body costs the engine no memory: refused from its Content-Length, never read.

The engine runs in its own process (so its resident memory is its own). Four
50 MB bodies at once on both POST routes must not raise its peak RSS by more
than a few MB (they are refused before a byte is read). The same as chunked
uploads are read only up to the limit: the peak grows by less than twice four
limits (pieces in flight; reading all of the bodies would be four times 50 MB);
and the pieces read are freed: the rounds after the first do not add to the RSS.
(Whether glibc hands freed pages back to the system is its own choice: what the
first round read may stay resident, to be reused by the next.)
File descriptors end no higher than they were, each count taken once the engine
holds no connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
from waiting import wait_until_sync

from spark_cli.bench.processes import rss_bytes, start_engine
from spark_cli.engine.core.config import EngineConfig

BODY = b" " * (50 * 1024 * 1024)
SLACK = 6 * 1024 * 1024
AT_ONCE = 4
ROUNDS = 3
READ = AT_ONCE * EngineConfig().http_max_body  # what one chunked round may hold at once
LISTEN = "0A"  # the state column of /proc/net/tcp


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


def _connections(pid: int) -> int:
    """The process's open TCP connections (its TCP sockets that are not listening)."""
    connected: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for row in Path(table).read_text().splitlines()[1:]:
                fields = row.split()
                if fields[3] != LISTEN:
                    connected.add(f"socket:[{fields[9]}]")
    count = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):  # closed while we looked
            count += os.readlink(fd) in connected
    return count


def _released(engine: Any) -> int:
    """The engine's open descriptors once it has released every connection (a socket the
    client just closed is released by the server a moment later)."""
    wait_until_sync(lambda: _connections(engine.pid) == 0, 20, "the engine closed its sockets")
    return int(engine.open_fds())


def test_fifty_megabyte_bodies_leave_the_engine_memory_and_fds_as_they_were() -> None:
    engine = start_engine("t", "--brain", "lorem")
    try:
        with httpx.Client(base_url=engine.url, trust_env=False, timeout=10) as http:
            for _ in range(3):  # warm: imports, first request, buffers
                http.post("/v1/responses", headers={"authorization": "Bearer t"},
                          json={"model": "m", "input": "x", "max_output_tokens": 5})
        fds = _released(engine)
        peak = rss_bytes(engine.pid, peak=True)
        assert asyncio.run(_send_all(engine.url, "t", chunked=False)) == [413] * AT_ONCE
        peaked = rss_bytes(engine.pid, peak=True) - peak
        assert peaked < SLACK, f"the engine's peak grew by {peaked / 2**20:.1f} MiB"
        after: list[int] = []
        for _ in range(ROUNDS):
            assert asyncio.run(_send_all(engine.url, "t", chunked=True)) == [413] * AT_ONCE
            assert _released(engine) <= fds
            after.append(rss_bytes(engine.pid))
        peaked = rss_bytes(engine.pid, peak=True) - peak
        assert peaked < 2 * READ, f"chunked uploads raised the peak {peaked / 2**20:.1f} MiB"
        grown = after[-1] - after[0]  # a leak of what was read: READ a round
        assert grown < READ, f"rounds after the first grew the engine {grown / 2**20:.1f} MiB"
    finally:
        engine.stop()
