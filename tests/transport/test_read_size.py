"""fit_reads: plain-TCP and asyncio's TLS transports read 64 KiB a call (not asyncio's
256 KiB); the channels' connections get it, on both wires, over TCP and TLS."""

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


async def test_a_tls_transport_reads_64_kib_a_call() -> None:
    import ssl

    import trustme

    ca = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost").configure_cert(server_context)
    client_context = ssl.create_default_context()
    ca.configure_trust(client_context)
    accepted: list[asyncio.StreamWriter] = []
    server = await asyncio.start_server(lambda _, w: accepted.append(w), "127.0.0.1", 0,
                                        ssl=server_context)
    port = server.sockets[0].getsockname()[1]
    _, writer = await asyncio.open_connection("127.0.0.1", port, ssl=client_context,
                                              server_hostname="localhost")
    protocol = writer.transport._ssl_protocol  # type: ignore[attr-defined]
    assert protocol.max_size > READ_BYTES
    fit_reads(writer.transport)
    assert protocol.max_size == READ_BYTES
    for each in (writer, *accepted):
        each.close()
    server.close()
    await server.wait_closed()


class _Tls(asyncio.BaseTransport):
    def __init__(self) -> None:
        super().__init__()
        self.max_size = 262144

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return object() if name == "sslcontext" else default


def test_unknown_tls_and_missing_transports_are_left_alone() -> None:
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


async def test_both_channels_read_64_kib_a_call_over_tls(
        engine_factory: Any, tmp_path: Any, monkeypatch: Any) -> None:
    from spark_cli.bench.tls_relay import serve_relay
    from spark_cli.protocol.secrets import Secrets
    from spark_cli.transport.sse.h11_client import H11Client
    from spark_cli.transport.ws.ws_links import Links

    engine = await engine_factory()
    auth = {"Authorization": f"Bearer {engine.token}"}
    port = int(engine.url.rsplit(":", 1)[1])
    async with serve_relay(("127.0.0.1", port), host="localhost") as relay:
        (tmp_path / "ca.pem").write_bytes(relay.ca_pem)
        monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))
        ws_url = relay.url.replace("https://", "wss://") + "/v1/responses"
        links = Links(ws_url, auth, Secrets(()), connect_timeout=5.0, warm_spare=False)
        link = await links.connect()
        assert link.ws.transport._ssl_protocol.max_size == READ_BYTES  # type: ignore[attr-defined]
        await link.ws.close()
        client = H11Client(relay.url + "/v1", auth, connect_timeout=5.0, write_timeout=5.0,
                           trust_env=True)
        conn = await client._connect()
        transport = conn.writer.transport
        assert transport._ssl_protocol.max_size == READ_BYTES  # type: ignore[attr-defined]
        conn.close()
        await conn.writer.wait_closed()
