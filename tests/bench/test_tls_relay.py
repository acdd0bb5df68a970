"""The bench's TLS relay: a client trusting only the relay's run-time authority reaches the
plain server behind it, both ways."""

from __future__ import annotations

import asyncio
import ssl

from spark_cli.bench.tls_relay import serve_relay


async def _echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.write(await reader.readexactly(5))
    await writer.drain()
    writer.close()


async def test_a_tls_client_reaches_the_plain_server_behind_the_relay() -> None:
    plain = await asyncio.start_server(_echo, "127.0.0.1", 0)
    target = plain.sockets[0].getsockname()[:2]
    async with serve_relay(target, host="localhost") as relay:
        assert relay.url.startswith("https://localhost:")
        context = ssl.create_default_context(cadata=relay.ca_pem.decode())
        port = int(relay.url.rsplit(":", 1)[1])
        reader, writer = await asyncio.open_connection("localhost", port, ssl=context)
        writer.write(b"hello")
        assert await reader.readexactly(5) == b"hello"
        assert writer.get_extra_info("sslcontext") is not None
        writer.close()
    plain.close()
