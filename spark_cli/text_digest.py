"""Digests of text: cache keys and "is this the text we sent"."""

from __future__ import annotations

import hashlib


def text_key(text: str) -> str:
    """A 128-bit blake2b of ``text`` (UTF-8, lone surrogates kept), in hex: a cache key."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def text_sha256(text: str) -> str:
    """The SHA-256 of ``text`` (UTF-8, lone surrogates kept), in hex."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
