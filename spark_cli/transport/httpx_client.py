"""The httpx path of the SSE channels (proxies, test transports, unusual URLs, ``SPARK_PLAIN``);
httpx's exceptions become :mod:`http_wire`'s at this boundary."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx

from spark_cli.transport import http_wire as wire
from spark_cli.transport.http_lines import LineSplitter


def _mapped(exc: Exception) -> wire.TransportError:
    """The http_wire exception for an httpx one (the caller raises it ``from exc``)."""
    text = str(exc)
    if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout):
        return wire.ConnectTimeout(text)
    if isinstance(exc, httpx.TimeoutException):
        return wire.WriteTimeout(text)
    if isinstance(exc, httpx.ConnectError):
        return wire.ConnectError(text)
    if isinstance(exc, httpx.RemoteProtocolError):
        return wire.RemoteProtocolError(text)
    if isinstance(exc, httpx.DecodingError):
        return wire.DecodingError(text)
    if isinstance(exc, httpx.ReadError):
        return wire.ReadError(text)
    return wire.TransportError(text or type(exc).__name__)  # WriteError, ProxyError...


_FAILURES = (httpx.TransportError, httpx.StreamError, httpx.DecodingError)


class HttpxResponse:
    __slots__ = ("_inner", "headers", "status_code")
    gathers = False  # httpx hands up one HTTP chunk a piece

    def __init__(self, inner: httpx.Response) -> None:
        self._inner = inner
        self.status_code = inner.status_code
        self.headers: Mapping[str, str] = inner.headers

    async def aread(self) -> bytes:
        try:
            return await self._inner.aread()
        except _FAILURES as exc:
            raise _mapped(exc) from exc

    async def aiter_line_batches(self) -> AsyncIterator[list[str]]:
        """The lines each piece httpx hands up completes, split by the SSE rule (as h11's)."""
        lines = LineSplitter()
        texts = self._inner.aiter_text()
        while True:
            try:
                batch = lines.split(await texts.__anext__())
            except StopAsyncIteration:
                break
            except _FAILURES as exc:
                raise _mapped(exc) from exc
            if batch:
                yield batch
        batch = lines.flush()
        if batch:
            yield batch

    async def aclose(self) -> None:
        await self._inner.aclose()


class Sending(wire.Exchange):
    """One POST in flight: the send task and the moment its body left."""

    __slots__ = ()

    def __init__(self, client: httpx.AsyncClient, request: httpx.Request) -> None:
        super().__init__()
        request.extensions["trace"] = self._trace
        self.task = asyncio.ensure_future(self._send(client, request))

    @staticmethod
    async def _send(client: httpx.AsyncClient, request: httpx.Request) -> HttpxResponse:
        try:
            return HttpxResponse(await client.send(request, stream=True))
        except _FAILURES as exc:
            raise _mapped(exc) from exc

    async def _trace(self, name: str, info: dict[str, Any]) -> None:
        if name.endswith("send_request_body.complete"):
            self.at = time.perf_counter()
            self.left.set()


class HttpxClient:
    """httpx.AsyncClient behind :class:`http_wire.HttpClient`.

    httpcore's ``trace`` extension says when the body was written; a transport that does not
    trace (``httpx.MockTransport``) counts as sent when it answers."""

    def __init__(
        self,
        base_url: str,
        headers: Mapping[str, str],
        *,
        connect_timeout: float,
        write_timeout: float,
        trust_env: bool,
        https: bool,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.client = httpx.AsyncClient(
            base_url=base_url,
            headers=headers,
            # no read timeout: quiet_for times silence (and knows when the request is queued)
            timeout=httpx.Timeout(
                connect=connect_timeout, read=None, write=write_timeout, pool=connect_timeout
            ),
            trust_env=trust_env,
            # plain http never uses TLS: skip loading the CA bundle
            verify=https,
            transport=transport,
        )

    def post(self, path: str, body: bytes) -> Sending:
        request = self.client.build_request(
            "POST", path, content=body, headers={"Content-Type": "application/json"})
        return Sending(self.client, request)

    async def aclose(self) -> None:
        await self.client.aclose()
