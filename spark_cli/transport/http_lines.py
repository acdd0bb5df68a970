"""A streamed response body as text lines: content decoding, charset, line splitting.

Lines end at ``\\r\\n``, ``\\n`` or ``\\r`` only (the SSE rule), unlike ``str.splitlines``,
which would cut a JSON payload holding U+2028 raw. One decode and one split per chunk."""

from __future__ import annotations

import codecs
import zlib
from collections.abc import Callable

_GZIP_WBITS = zlib.MAX_WBITS | 16


class LineSplitter:
    """Feed decoded text as it arrives; get the lines it completes."""

    __slots__ = ("_cr", "_rest")

    def __init__(self) -> None:
        self._rest = ""
        self._cr = False
        """The last text ended in ``\\r``: held back in case ``\\n`` follows."""

    def split(self, text: str) -> list[str]:
        if self._cr:
            text = "\r" + text
            self._cr = False
        if text[-1:] == "\r":
            self._cr = True
            text = text[:-1]
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")
        if self._rest:
            lines[0] = self._rest + lines[0]
        self._rest = lines.pop()
        return lines

    def flush(self, text: str = "") -> list[str]:
        """The body ended: the lines still held, the last one without its ending too."""
        lines = self.split(text) if text else []
        if self._cr or self._rest:
            lines.append(self._rest)
        self._rest = ""
        self._cr = False
        return lines


def text_decoder(content_type: str) -> codecs.IncrementalDecoder:
    """The charset named in ``content_type`` if Python knows it, else UTF-8 (as httpx)."""
    encoding = "utf-8"
    for param in content_type.split(";")[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset":
            candidate = value.strip().strip("'\"")
            try:
                codecs.lookup(candidate)
            except LookupError:
                break
            encoding = candidate
            break
    return codecs.getincrementaldecoder(encoding)(errors="replace")


def body_decoder(content_encoding: str) -> Callable[[bytes], bytes] | None:
    """A decoder for a gzip or deflate body (the codings spark asks for), else None."""
    coding = content_encoding.strip().lower()
    if coding in ("gzip", "x-gzip"):
        return zlib.decompressobj(_GZIP_WBITS).decompress
    if coding == "deflate":
        return _Deflate().decompress
    return None


class _Deflate:
    """zlib-wrapped deflate, or raw deflate from servers that send that (as httpx allows)."""

    __slots__ = ("_first", "_inner")

    def __init__(self) -> None:
        self._inner = zlib.decompressobj()
        self._first = True

    def decompress(self, data: bytes) -> bytes:
        if self._first:
            self._first = False
            try:
                return self._inner.decompress(data)
            except zlib.error:
                self._inner = zlib.decompressobj(-zlib.MAX_WBITS)
        return self._inner.decompress(data)
