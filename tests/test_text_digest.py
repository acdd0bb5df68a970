"""text_digest: hashlib's digests of a text's UTF-8, lone surrogates kept."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from spark_cli.text_digest import text_key, text_sha256


@given(st.text())
def test_the_digests_are_hashlibs(text: str) -> None:
    data = text.encode("utf-8", "surrogatepass")
    assert text_sha256(text) == hashlib.sha256(data).hexdigest()
    assert text_key(text) == hashlib.blake2b(data, digest_size=16).hexdigest()


def test_a_lone_surrogate_is_digested_not_refused() -> None:
    assert text_sha256("a\udc80") == hashlib.sha256(b"a\xed\xb2\x80").hexdigest()
    assert len(text_key("a\udc80")) == 32
