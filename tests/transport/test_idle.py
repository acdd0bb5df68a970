"""IdleWatch: only time spent waiting counts; a changed limit applies at once."""

from __future__ import annotations

import asyncio
import time

from spark_cli.transport.silence import IdleWatch


async def _wait_until_fired(watch: IdleWatch, limit: float) -> float:
    started = time.monotonic()
    watch.since = time.monotonic()
    try:
        await asyncio.sleep(limit)  # a quiet wait: the watch cancels it
    except asyncio.CancelledError:
        assert watch.claim()
        return time.monotonic() - started
    finally:
        watch.close()
    raise AssertionError("the watch never fired")


async def test_a_shorter_limit_takes_effect_without_waiting_out_the_longer_one() -> None:
    watch = IdleWatch(30.0)
    watch.set_limit(0.05)
    assert await _wait_until_fired(watch, 5.0) < 2.0


async def test_a_longer_limit_keeps_a_quiet_wait_alive() -> None:
    watch = IdleWatch(0.05)
    watch.set_limit(0.5)
    watch.since = time.monotonic()
    await asyncio.sleep(0.2)  # longer than the first limit: no cancel
    watch.close()
    assert not watch.fired
