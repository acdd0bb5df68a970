"""Socket reads of a size the allocator serves without a system call.

asyncio's plain-TCP transport reads with ``sock.recv(256 KiB)`` for a
(non-buffered) protocol such as websockets' connection or a ``StreamReader``:
each read allocates a 256 KiB ``bytes`` object, above glibc's ``mmap``
threshold (128 KiB), so every read is an ``mmap`` + ``mremap`` (shrinking to
what arrived) + ``munmap`` and a page fault; a one-token-per-message stream
reads once per token. :func:`fit_reads` lowers the transport's read size to
64 KiB (the heap serves it; a stream's messages are far smaller, and a larger
burst is read in more calls).

asyncio's TLS transport reads the socket into its protocol's reused buffer and
hands the application its data with ``SSLObject.read(max_size)`` (256 KiB),
called until it fails for want of data. glibc raises its ``mmap`` threshold
when that failing read frees its whole 256 KiB buffer, so on glibc's defaults
these reads come from the heap anyway; where the threshold is fixed (another
allocator, ``MALLOC_MMAP_THRESHOLD_``) each is an ``mmap`` + ``munmap``.
:func:`fit_reads` lowers the TLS protocol's ``max_size`` to 64 KiB too (a TLS
record carries at most 16 KiB).

Measured by ``spark bench stream`` (plain TCP) and ``spark bench tls``
(docs/benchmarks.md, ``## Stream``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio

READ_BYTES = 64 * 1024


def fit_reads(transport: asyncio.BaseTransport | None) -> None:
    """Read at most :data:`READ_BYTES` a call on ``transport``, plain TCP or asyncio's TLS."""
    if transport is None:
        return
    if transport.get_extra_info("sslcontext") is not None:
        # asyncio's _SSLProtocolTransport: the SSLProtocol behind it reads for the application
        reader: object = getattr(transport, "_ssl_protocol", None)
    else:
        reader = transport
    if isinstance(getattr(reader, "max_size", None), int):
        reader.max_size = READ_BYTES  # type: ignore[attr-defined]
