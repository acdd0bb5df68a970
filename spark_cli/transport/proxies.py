"""Whether a proxy from the environment carries a request to a URL (as httpx's ``trust_env``
decides), and what is loopback; anything unsure counts as proxied. Reads ``os.environ`` only."""

from __future__ import annotations

import socket
import sys
from collections.abc import Mapping
from urllib.parse import urlsplit


def is_loopback(base_url: str) -> bool:
    """``localhost`` or a loopback address."""
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
    """``NO_PROXY`` surely exempts ``host`` (as httpx matches it)."""
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
