"""https on the lean client against a local TLS server (a throwaway certificate made with
the openssl command): verified against the CA bundle, SNI sent, the same refusal as httpx."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from spark_cli.protocol.channel import ChannelError, Message, TextDelta, TurnRequest
from spark_cli.transport.fast.h11_client import H11Client
from spark_cli.transport.sse.http_chat import ChatCompletionsChannel

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl")
REQUEST = TurnRequest("m", (Message("user", "hi"),))
SSE = (b'data: {"id":"c","choices":[{"index":0,"delta":{"content":"secure"},'
       b'"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n')


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    where = tmp_path_factory.mktemp("tls")
    cert, key = where / "cert.pem", where / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj",
                    "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


class TLSServer:
    def __init__(self) -> None:
        self.sni: list[str | None] = []
        self.alpn: list[str | None] = []
        self.port = 0


async def _handle(server: TLSServer, reader: asyncio.StreamReader,
                  writer: asyncio.StreamWriter) -> None:
    try:
        server.alpn.append(writer.get_extra_info("ssl_object").selected_alpn_protocol())
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:"))
        await reader.readexactly(length)
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                     b"content-length: %d\r\n\r\n%s" % (len(SSE), SSE))
        await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
        pass
    finally:
        writer.close()


@pytest.fixture
async def tls_server(certificate: tuple[Path, Path]) -> AsyncIterator[TLSServer]:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(*certificate)
    context.set_alpn_protocols(["http/1.1"])
    state = TLSServer()
    context.sni_callback = lambda sock, name, ctx: state.sni.append(name)
    server = await asyncio.start_server(
        lambda r, w: _handle(state, r, w), "127.0.0.1", 0, ssl=context)
    state.port = server.sockets[0].getsockname()[1]
    async with server:
        yield state


async def turn(url: str, route: str, **options: Any) -> list[Any]:
    if route == "httpx":  # as the channel builds it for loopback: environment not trusted
        options["transport"] = httpx.AsyncHTTPTransport(trust_env=False)
    ch = ChatCompletionsChannel(url, "k", max_retries=0, **options)
    assert isinstance(ch._net, H11Client) is (route == "lean")
    try:
        async with asyncio.timeout(10):
            return [e async for e in ch.stream(REQUEST)]
    finally:
        await ch.aclose()


async def test_a_trusted_certificate_carries_the_turn_with_sni_and_alpn(
    tls_server: TLSServer, certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import certifi

    monkeypatch.setattr(certifi, "where", lambda: str(certificate[0]))  # the bundle both load
    for route in ("lean", "httpx"):
        events = await turn(f"https://localhost:{tls_server.port}/v1", route)
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "secure"
    assert tls_server.sni == ["localhost", "localhost"]
    assert tls_server.alpn == ["http/1.1", "http/1.1"]


async def test_an_untrusted_certificate_is_refused_in_the_same_words(
    tls_server: TLSServer,
) -> None:
    errors = []
    for route in ("lean", "httpx"):
        with pytest.raises(ChannelError) as info:
            await turn(f"https://127.0.0.1:{tls_server.port}/v1", route)
        errors.append(info.value)
    lean, via_httpx = errors
    assert lean.kind == via_httpx.kind == "connection"
    assert lean.message == via_httpx.message
    assert "CERTIFICATE_VERIFY_FAILED" in lean.message


async def test_a_trusted_environment_names_the_bundle_with_ssl_cert_file(
    tls_server: TLSServer, certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))
    client = H11Client(f"https://localhost:{tls_server.port}/v1", {}, connect_timeout=5,
                       write_timeout=5, trust_env=True)
    exchange = client.post("chat/completions", b"{}")
    async with asyncio.timeout(10):
        response = await exchange.task
        body = await response.aread()
    await client.aclose()
    assert response.status_code == 200 and body == SSE
    assert exchange.sent_at() > 0
