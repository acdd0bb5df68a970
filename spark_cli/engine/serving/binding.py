"""The engine's listening socket: bound before it serves, and the host its URLs name."""

from __future__ import annotations

import socket


def url_host(host: str) -> str:
    """``host`` as a URL names it (a wildcard address: its loopback)."""
    if host in ("0.0.0.0", ""):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


def bind_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` (raises ``OSError``: address in use, …)."""
    # an ASCII host goes as bytes: a str is IDNA-encoded first (importing encodings.idna)
    name: str | bytes | None = (host.encode() if host.isascii() else host) if host else None
    infos = socket.getaddrinfo(name, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    return sock
