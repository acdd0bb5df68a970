"""A TLS-terminating relay in front of the bundled engine, to measure spark's reads over TLS.

``python -m spark_cli.bench.tls_relay HOST:PORT CA_FILE`` issues a throw-away
certificate authority and server certificate at run time (``trustme``, a dev
dependency; nothing is downloaded), writes the authority to ``CA_FILE``,
listens with TLS and forwards every connection's bytes to the engine at
``HOST:PORT`` both ways. It prints the ``https://`` base URL to give
``spark edit --base-url`` (``…/v1``); the WebSocket channel dials ``wss://`` at
the same address. Run the client with ``SSL_CERT_FILE=CA_FILE``: spark's real
way to trust another authority.

The URL names this machine by its host name, not ``localhost`` or
``127.0.0.1``: spark never reads the environment (``SSL_CERT_FILE``, proxies)
for a loopback URL, as httpx does with ``trust_env`` off. The host name must
resolve to an address of this machine (it usually does: ``/etc/hosts``).

``spark bench tls`` (:mod:`spark_cli.bench.tls_reads`) runs it in a thread; the
figures are in docs/benchmarks.md ``## Stream`` (TLS reads, ``transport/read_size.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
import sys
from collections.abc import AsyncIterator
from pathlib import Path

from spark_cli.record import record

CHUNK = 64 * 1024


@record
class Relay:
    """A running TLS relay: its address and the certificate authority a client trusts."""

    url: str
    """``https://HOST:PORT``, the relay's address."""
    ca_pem: bytes
    """The authority that signed the relay's certificate (PEM)."""


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(CHUNK):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        writer.close()


@contextlib.asynccontextmanager
async def serve_relay(target: tuple[str, int], host: str | None = None) -> AsyncIterator[Relay]:
    """Relay TLS connections on ``host`` (default: this machine's host name) to plain
    ``target`` while the block runs."""
    try:
        import trustme
    except ImportError:
        raise SystemExit("the TLS relay needs trustme: pip install -e '.[dev]'") from None
    name = host or socket.gethostname()
    address = socket.gethostbyname(name)
    ca = trustme.CA()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(name, address).configure_cert(context)

    writers: set[asyncio.StreamWriter] = set()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.add(writer)
        try:
            up_reader, up_writer = await asyncio.open_connection(*target)
        except OSError:
            writer.close()
            return
        writers.add(up_writer)
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

    server = await asyncio.start_server(handle, address, 0, ssl=context)
    port = server.sockets[0].getsockname()[1]
    try:
        yield Relay(f"https://{name}:{port}", ca.cert_pem.bytes())
    finally:
        server.close()
        for writer in writers:
            writer.close()
            with contextlib.suppress(OSError, ssl.SSLError):
                await writer.wait_closed()


async def _main(target: str, ca_file: Path) -> None:
    host, _, port = target.rpartition(":")
    async with serve_relay((host, int(port))) as relay:
        ca_file.write_bytes(relay.ca_pem)
        print(relay.url, flush=True)
        await asyncio.Event().wait()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: python -m spark_cli.bench.tls_relay ENGINE_HOST:PORT CA_FILE")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_main(sys.argv[1], Path(sys.argv[2])))
