"""Which HTTP client a channel uses: the lean h11 one, unless httpx would do more.

Anything unsure goes to httpx: it loses nothing, only start-up time. The
decision reads ``os.environ`` only; it never imports urllib.request on Linux.
"""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from spark_cli.transport.sse.http_wire import HttpAhead, HttpClient

_PLAIN_PATH = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/")


def is_loopback(base_url: str) -> bool:
    """``localhost`` or a loopback address, as ``ipaddress`` tells (imported only for an
    IPv6 address with a zone: a one-shot's way to its request skips it)."""
    host = urlsplit(base_url).hostname or ""
    if host == "localhost":
        return True
    if "%" in host:
        from ipaddress import ip_address  # deferred: launch -> request

        try:
            return ip_address(host).is_loopback
        except ValueError:
            return False
    for family, loopback in ((socket.AF_INET, None), (socket.AF_INET6, _IPV6_LOOPBACK)):
        try:
            packed = socket.inet_pton(family, host)
        except OSError:
            continue
        return packed[0] == 127 if loopback is None else packed == loopback
    return False


_IPV6_LOOPBACK = bytes(15) + b"\x01"


def lean_fits(base_url: str) -> bool:
    """The lean client speaks to this base URL exactly as httpx would."""
    parts = urlsplit(base_url)
    return (parts.username is None and parts.password is None and not parts.query
            and not parts.fragment and not (set(parts.path) - _PLAIN_PATH)
            and parts.scheme.lower() in ("http", "https") and bool(parts.hostname))


def proxy_applies(base_url: str, environ: Mapping[str, str], platform: str = "") -> bool:
    """Whether httpx with ``trust_env`` might send a request to ``base_url`` via a proxy."""
    parts = urlsplit(base_url)
    scheme = parts.scheme.lower()
    proxies: dict[str, str] = {}
    for name, value in environ.items():
        lower = name.lower()
        if lower.endswith("_proxy") and value:
            proxies[lower[:-6]] = value  # either case set: count it (lower case wins in urllib)
    if not (proxies.get(scheme) or proxies.get("all")):
        proxies = _system_proxies(platform or sys.platform)
        if not (proxies.get(scheme) or proxies.get("all")):
            return False
    return not _exempt(parts.hostname or "", proxies.get("no", ""))


def _exempt(host: str, no_proxy: str) -> bool:
    """``NO_PROXY`` surely exempts ``host``: ``*``, the host itself, ``example.com`` for
    it and its subdomains, ``.example.com`` for subdomains (as httpx matches them)."""
    host = host.lower()
    for entry in no_proxy.split(","):
        entry = entry.strip().lower()
        if entry == "*":
            return True
        if not entry or entry[0] == "*" or "://" in entry or "/" in entry:
            continue  # unusual forms: httpx decides
        if entry == host:
            return True
        if entry[0] == "." and host.endswith(entry):
            return True
        if entry[0] != "." and not _is_ip(entry) and host.endswith("." + entry):
            return True
    return False


def _is_ip(text: str) -> bool:
    from ipaddress import ip_address  # deferred: launch -> request

    try:
        ip_address(text)
    except ValueError:
        return False
    return True


def _system_proxies(platform: str) -> dict[str, str]:
    if platform == "darwin":
        try:
            # deferred: launch -> request
            from _scproxy import _get_proxies  # type: ignore[import-not-found]
        except ImportError:
            return {}
        return dict(_get_proxies())
    if platform == "win32":
        import urllib.request  # deferred: launch -> request

        return dict(urllib.request.getproxies())
    return {}


def lean_route(base_url: str, transport: Any = None) -> bool:
    """Whether :func:`open_client` gives ``base_url`` the lean client.

    httpx is chosen (imported only then) when:
    - a test injects an httpx transport (``transport=``, e.g. ``httpx.MockTransport``);
    - a proxy applies from the environment: ``HTTP_PROXY`` / ``HTTPS_PROXY`` /
      ``ALL_PROXY`` (any case) for the URL's scheme, unless ``NO_PROXY`` surely
      exempts the host (``*``, the host, or a domain it is in). httpx's
      ``trust_env`` reads the same variables (loopback URLs never trust the
      environment). On macOS the system proxies (``_scproxy``, as
      urllib reads them) count too; on Windows urllib is asked (the registry);
    - the base URL has userinfo (httpx turns it into Basic auth), a query or a
      fragment, or a path that is not plain ASCII.
    """
    return (transport is None and lean_fits(base_url)
            and not (not is_loopback(base_url) and proxy_applies(base_url, os.environ)))


def open_client(
    base_url: str,
    headers: Mapping[str, str],
    *,
    connect_timeout: float,
    write_timeout: float,
    transport: Any = None,
    ahead: HttpAhead | None = None,
) -> HttpClient:
    """The client for ``base_url``: :class:`H11Client` where it fits, else httpx.

    ``ahead``: a request sent ahead (:mod:`http_ahead`) for the lean client to
    adopt; closed unread if httpx is chosen after all."""
    trust_env = not is_loopback(base_url)
    https = urlsplit(base_url).scheme.lower() == "https"
    if lean_route(base_url, transport):
        from spark_cli.transport.sse.h11_client import H11Client  # deferred: launch -> request

        return H11Client(base_url, headers, connect_timeout=connect_timeout,
                         write_timeout=write_timeout, trust_env=trust_env, ahead=ahead)
    if ahead is not None:
        ahead.close()
    from spark_cli.transport.sse.httpx_client import HttpxClient  # deferred: launch -> request

    return HttpxClient(base_url, headers, connect_timeout=connect_timeout,
                       write_timeout=write_timeout, trust_env=trust_env, https=https,
                       transport=transport)
