"""Waiting in tests for a condition, never for a fixed time.

``wait_until`` polls a condition (a server started, a task reached a state, a frame arrived,
a file changed) and returns as soon as it holds, failing after a bounded deadline;
``wait_until_sync`` is the same outside an event loop. ``holds`` is for a claim that
something does *not* happen (nothing is painted after Esc): it fails the moment the
condition breaks within the window. This is the one module in tests/ that polls with a
sleep (tests/test_test_shape.py enforces it).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

What = str | Callable[[], str]

POLL_S = 0.005


async def wait_until(check: Callable[[], object], timeout: float = 20.0, what: What = "",
                     *, poll: float = POLL_S) -> None:
    """Return once ``check()`` is truthy; ``TimeoutError`` naming ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"not within {timeout} s: {_said(what, check)}")
        await asyncio.sleep(poll)


def wait_until_sync(check: Callable[[], object], timeout: float = 20.0, what: What = "",
                    *, poll: float = POLL_S) -> None:
    """``wait_until`` for code outside an event loop (a subprocess, a thread's result)."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"not within {timeout} s: {_said(what, check)}")
        time.sleep(poll)


async def holds(check: Callable[[], object], seconds: float, what: What = "") -> None:
    """Assert ``check()`` stays truthy for ``seconds`` (a claim that nothing more happens):
    fails at the first poll where it does not."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert check(), f"stopped holding: {_said(what, check)}"
        await asyncio.sleep(POLL_S)
    assert check(), f"stopped holding: {_said(what, check)}"


def _said(what: What, check: Callable[[], object]) -> str:
    return (what() if callable(what) else what) or repr(check)
