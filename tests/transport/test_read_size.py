"""fit_reads: plain-TCP transports read 64 KiB a call (not asyncio's 256 KiB); the
channels' connections get it, on both wires."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

from spark_cli.transport.read_size import READ_BYTES, fit_reads


async def test_a_plain_tcp_transport_reads_64_kib_a_call() -> None:
    ours, theirs = socket.socketpair()
    _, writer = await asyncio.open_connection(sock=ours)
    assert writer.transport.max_size > READ_BYTES  # type: ignore[attr-defined]
    fit_reads(writer.transport)
    assert writer.transport.max_size == READ_BYTES  # type: ignore[attr-defined]
    writer.close()
    await writer.wait_closed()
    theirs.close()


class _Tls(asyncio.BaseTransport):
    def __init__(self) -> None:
        super().__init__()
        self.max_size = 262144

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return object() if name == "sslcontext" else default


def test_tls_and_missing_transports_are_left_alone() -> None:
    tls = _Tls()
    fit_reads(tls)
    fit_reads(None)
    assert tls.max_size == 262144


async def test_both_channels_read_64_kib_a_call(engine_factory: Any) -> None:
    from spark_cli.protocol.secrets import Secrets
    from spark_cli.transport.sse.h11_client import H11Client
    from spark_cli.transport.ws.ws_links import Links

    engine = await engine_factory()
    auth = {"Authorization": f"Bearer {engine.token}"}
    links = Links(engine.ws_url, auth, Secrets(()), connect_timeout=5.0, warm_spare=False)
    link = await links.connect()
    assert link.ws.transport.max_size == READ_BYTES
    await link.ws.close()
    client = H11Client(engine.url + "/v1", auth, connect_timeout=5.0, write_timeout=5.0,
                       trust_env=False)
    conn = await client._connect()
    assert conn.writer.transport.max_size == READ_BYTES  # type: ignore[attr-defined]
    conn.close()
    await conn.writer.wait_closed()
