"""Which client a channel gets: lean h11 for direct URLs, httpx where it would do more."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from spark_cli.transport.fast import on
from spark_cli.transport.fast.h11_client import H11Client
from spark_cli.transport.fast.http_ahead import lean_fits
from spark_cli.transport.httpx_client import HttpxClient
from spark_cli.transport.proxies import is_loopback, proxy_applies
from spark_cli.transport.sse.http_chat import ChatCompletionsChannel

PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    return monkeypatch


@pytest.mark.parametrize(
    ("url", "environ", "expected"),
    [
        ("https://api.x.test/v1", {}, False),
        ("https://api.x.test/v1", {"HTTPS_PROXY": "http://proxy:3128"}, True),
        ("https://api.x.test/v1", {"https_proxy": "proxy:3128"}, True),
        ("https://api.x.test/v1", {"ALL_PROXY": "socks5://proxy:1080"}, True),
        ("https://api.x.test/v1", {"all_proxy": "socks5://proxy:1080"}, True),
        ("https://api.x.test/v1", {"HTTP_PROXY": "http://proxy:3128"}, False),  # other scheme
        ("http://api.x.test/v1", {"http_proxy": "http://proxy:3128"}, True),
        ("http://api.x.test/v1", {"http_proxy": ""}, False),  # empty: unset
        ("https://api.x.test/v1", {"HTTPS_PROXY": "p:1", "NO_PROXY": "*"}, False),
        ("https://api.x.test/v1", {"HTTPS_PROXY": "p:1", "no_proxy": "a.test, api.x.test"}, False),
        ("https://api.x.test/v1", {"HTTPS_PROXY": "p:1", "NO_PROXY": "x.test"}, False),
        ("https://api.x.test/v1", {"HTTPS_PROXY": "p:1", "NO_PROXY": ".x.test"}, False),
        ("https://x.test/v1", {"HTTPS_PROXY": "p:1", "NO_PROXY": ".x.test"}, True),  # subdomains
        ("https://api.x.test/v1", {"HTTPS_PROXY": "p:1", "NO_PROXY": "pix.test"}, True),
        ("https://api.x.test/v1", {"HTTPS_PROXY": "p:1", "NO_PROXY": "*.x.test"}, True),  # unsure
        ("https://10.1.2.3/v1", {"HTTPS_PROXY": "p:1", "NO_PROXY": "10.1.2.3"}, False),
        ("https://10.1.2.3/v1", {"HTTPS_PROXY": "p:1", "NO_PROXY": "10.0.0.0/8"}, True),  # unsure
    ],
)
def test_proxy_applies_as_httpx_would_or_errs_toward_httpx(
    url: str, environ: dict[str, str], expected: bool
) -> None:
    assert proxy_applies(url, environ, platform="linux") is expected


def test_what_the_environment_says_is_what_httpx_does() -> None:
    """Where the lean path is chosen, httpx with trust_env would not proxy either."""
    from httpx._utils import get_environment_proxies

    cases = [{"HTTPS_PROXY": "http://p:1", "NO_PROXY": entry}
             for entry in ("*", "api.x.test", "x.test", ".x.test", "a.test,api.x.test")]
    for environ in cases:
        assert not proxy_applies("https://api.x.test/v1", environ, platform="linux")
        with pytest.MonkeyPatch.context() as patch:
            for name in PROXY_VARS:
                patch.delenv(name, raising=False)
                patch.delenv(name.lower(), raising=False)
            for name, value in environ.items():
                patch.setenv(name, value)
            client = httpx.AsyncClient(trust_env=True)
            transport = client._transport_for_url(httpx.URL("https://api.x.test/v1/x"))
            assert transport is client._transport, (environ, get_environment_proxies())


@pytest.mark.parametrize(
    ("url", "fits"),
    [
        ("https://api.x.test/v1", True),
        ("http://127.0.0.1:8080/", True),
        ("http://[::1]:8080/v1", True),
        ("https://user:pw@api.x.test/v1", False),  # httpx sends Basic auth from it
        ("https://api.x.test/v1?api-version=2", False),
        ("https://api.x.test/v1#frag", False),
        ("https://api.x.test/my%20api", False),
        ("https://api.x.test/ü", False),
    ],
)
def test_lean_fits_plain_base_urls_only(url: str, fits: bool) -> None:
    assert lean_fits(url) is fits


@pytest.mark.skipif(not on("h11"), reason="SPARK_PLAIN: the lean h11 client is off")
def test_a_proxy_in_the_environment_routes_to_httpx(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    remote = ChatCompletionsChannel("https://api.x.test/v1", "k")
    assert isinstance(remote._net, HttpxClient)
    mounted = remote._net.client._transport_for_url(httpx.URL("https://api.x.test/v1/x"))
    assert mounted is not remote._net.client._transport  # httpx will use the proxy
    local = ChatCompletionsChannel("http://127.0.0.1:8080/v1", "k")
    assert isinstance(local._net, H11Client)  # loopback never trusts the environment
    clean_env.setenv("NO_PROXY", "x.test")
    assert isinstance(ChatCompletionsChannel("https://api.x.test/v1", "k")._net, H11Client)


@pytest.mark.skipif(not on("h11"), reason="SPARK_PLAIN: the lean h11 client is off")
def test_an_injected_transport_routes_to_httpx(clean_env: Any) -> None:
    ch = ChatCompletionsChannel("http://127.0.0.1:8080/v1", "k",
                                transport=httpx.MockTransport(lambda r: httpx.Response(200)))
    assert isinstance(ch._net, HttpxClient)
    assert isinstance(ChatCompletionsChannel("http://127.0.0.1:8080/v1", "k")._net, H11Client)


@pytest.mark.parametrize("plain", ["1", "h11", "yes", "h11,nonsense"])
def test_spark_plain_routes_every_url_to_httpx(clean_env: pytest.MonkeyPatch, plain: str) -> None:
    clean_env.setenv("SPARK_PLAIN", plain)
    for url in ("http://127.0.0.1:8080/v1", "https://api.x.test/v1"):
        assert isinstance(ChatCompletionsChannel(url, "k")._net, HttpxClient)
    clean_env.setenv("SPARK_PLAIN", "head_start,edit_args")  # other tricks off: h11 stays
    assert isinstance(ChatCompletionsChannel("http://127.0.0.1:8080/v1", "k")._net, H11Client)


def test_the_httpx_path_verifies_tls_for_https_and_skips_it_for_http(clean_env: Any) -> None:
    import ssl

    clean_env.setenv("ALL_PROXY", "http://127.0.0.1:9")
    for url, mode in (("https://api.x.test/v1", ssl.CERT_REQUIRED),
                      ("http://api.x.test/v1", ssl.CERT_NONE)):
        net = ChatCompletionsChannel(url, "k")._net
        assert isinstance(net, HttpxClient)
        assert net.client._transport._pool._ssl_context.verify_mode == mode  # type: ignore[attr-defined]


@pytest.mark.parametrize("host", ["127.0.0.1", "127.3.2.1", "[::1]", "[::2]", "10.0.0.1",
                                  "128.0.0.1", "localhost", "example.com", "127.0.0.01",
                                  "[::ffff:127.0.0.1]", "[0:0:0:0:0:0:0:1]", "[fe80::1%25lo]",
                                  "[::1%25lo]", "1.2.3", "0x7f.1"])
def test_is_loopback_answers_as_ipaddress_does(host: str) -> None:
    import ipaddress

    name = host.strip("[]").replace("%25", "%")
    try:
        expected = name == "localhost" or ipaddress.ip_address(name).is_loopback
    except ValueError:
        expected = False
    assert is_loopback(f"http://{host}:8000/v1") is expected
