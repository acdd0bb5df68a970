"""Socket reads of a size the allocator serves without a system call.

asyncio's plain-TCP transport reads with ``sock.recv(256 KiB)`` for a
(non-buffered) protocol such as websockets' connection or a ``StreamReader``:
each read allocates a 256 KiB ``bytes`` object, above glibc's ``mmap``
threshold (128 KiB), so every read is an ``mmap`` + ``mremap`` (shrinking to
what arrived) + ``munmap`` and a page fault; a one-token-per-message stream
reads once per token. :func:`fit_reads` lowers the transport's read size to
64 KiB (the heap serves it; a stream's messages are far smaller, and a larger
burst is read in more calls). TLS transports are left alone: their reads come
from ``ssl``'s own buffer, not this attribute.

Measured by ``spark bench stream`` (docs/benchmarks.md, ``## Stream``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio

READ_BYTES = 64 * 1024


def fit_reads(transport: asyncio.BaseTransport | None) -> None:
    """Read at most :data:`READ_BYTES` a call on ``transport`` if it is plain TCP."""
    if transport is None or transport.get_extra_info("sslcontext") is not None:
        return
    if isinstance(getattr(transport, "max_size", None), int):
        transport.max_size = READ_BYTES  # type: ignore[attr-defined]
