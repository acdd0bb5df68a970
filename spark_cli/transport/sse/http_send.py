"""Sending one streamed POST with httpx: when its bytes left, and tidying up after it.

``RequestSent`` must mean the request left. httpcore reports the moment the
request body was written through the ``trace`` request extension
(``http11.send_request_body.complete``, ``http2.…``); :class:`Sending` records
it while the response headers are still on the way. A transport that does not
trace (``httpx.MockTransport``) counts as sent when it answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from ipaddress import ip_address
from typing import Any
from urllib.parse import urlsplit

from spark_cli.transport.sse.httpx_lean import httpx


class Sending:
    """One POST in flight: the send task and the moment its body left."""

    __slots__ = ("at", "left", "task")

    def __init__(self, client: httpx.AsyncClient, request: httpx.Request) -> None:
        self.at: float | None = None
        """``time.perf_counter()`` when the body was written; None until then."""
        self.left = asyncio.Event()
        request.extensions["trace"] = self._trace
        self.task: asyncio.Future[httpx.Response] = asyncio.ensure_future(
            client.send(request, stream=True))

    async def _trace(self, name: str, info: dict[str, Any]) -> None:
        if name.endswith("send_request_body.complete"):
            self.at = time.perf_counter()
            self.left.set()

    def sent_at(self) -> float:
        """When the request left; raises what stopped it if it never did."""
        if self.at is None:
            self.task.result()  # the send failed: raise why (or it answered untraced)
            self.at = time.perf_counter()
        return self.at

    async def settle(self, response: httpx.Response | None) -> None:
        """Cancel the send if still in flight, else close the response it produced."""
        task = self.task
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
            return
        if response is None and not task.cancelled() and task.exception() is None:
            response = task.result()
        if response is not None:
            await response.aclose()


async def first_of(stop: asyncio.Event, *waits: Any) -> None:
    """Return when any future in ``waits`` is done (coroutines are wrapped) or ``stop`` is set."""
    stopped = asyncio.ensure_future(stop.wait())
    futures = [asyncio.ensure_future(w) for w in waits]
    try:
        await asyncio.wait((stopped, *futures), return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopped.cancel()
        for future, wait in zip(futures, waits, strict=True):
            if future is not wait:
                future.cancel()  # a wrapper made here, not the caller's future


def is_loopback(base_url: str) -> bool:
    host = urlsplit(base_url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False
