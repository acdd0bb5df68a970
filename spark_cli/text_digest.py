"""Digests of text (cache keys, "is this the text we sent"), without loading OpenSSL.

``import hashlib`` loads ``_hashlib``, OpenSSL's libcrypto (~3.5 ms here), for
whichever algorithm is then asked for. blake2b is CPython's own in any case
(hashlib never takes OpenSSL's), and sha256 has CPython's own too
(``_sha256``; ``_sha2`` from Python 3.12): the same digests, from modules that
load in microseconds. So a one-shot `spark edit` on HTTP gets its request out
without libcrypto; anything missing falls back to hashlib. Imports nothing of
spark.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_Hash = Callable[..., Any]


def _blake2b() -> _Hash:
    try:
        from _blake2 import blake2b
    except ImportError:  # another interpreter
        from hashlib import blake2b
    return blake2b


def _sha256() -> _Hash:
    for module in ("_sha2", "_sha256"):
        try:
            return __import__(module).sha256  # type: ignore[no-any-return]
        except (ImportError, AttributeError):
            continue
    from hashlib import sha256

    return sha256


_BLAKE2B = _blake2b()
_SHA256 = _sha256()


def text_key(text: str) -> str:
    """A 128-bit blake2b of ``text`` (UTF-8, lone surrogates kept), in hex: a cache key."""
    return str(_BLAKE2B(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest())


def text_sha256(text: str) -> str:
    """The SHA-256 of ``text`` (UTF-8, lone surrogates kept), in hex."""
    return str(_SHA256(text.encode("utf-8", "surrogatepass")).hexdigest())
