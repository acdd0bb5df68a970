"""text_digest: the same digests hashlib gives, without loading OpenSSL."""

from __future__ import annotations

import hashlib
import subprocess
import sys

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


def test_digests_load_no_openssl() -> None:
    code = ("import sys\nfrom spark_cli.text_digest import text_key, text_sha256\n"
            "text_key('x'), text_sha256('x')\n"
            "print('_hashlib' in sys.modules, 'hashlib' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["False", "False"]
