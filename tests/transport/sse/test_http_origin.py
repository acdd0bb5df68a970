"""Origin: the request head every POST carries, and the head start's bytes made without h11.

``plain_post`` must be h11's own bytes whenever it answers at all: checked
against h11 for generated headers, targets and bodies, with names and values
h11 refuses or rewrites among them.
"""

from __future__ import annotations

import h11
import pytest
from hypothesis import given
from hypothesis import strategies as st

from spark_cli.transport.sse.http_bodies import stream_headers
from spark_cli.transport.sse.http_origin import Origin, new_connection, request_bytes

TOKEN = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
names = st.one_of(st.text(TOKEN, min_size=1, max_size=12),
                  st.sampled_from(["Host", "content-length", "Transfer-Encoding", "Accept",
                                   "bad name", "", "x:y", "n\u00e9"]))
values = st.one_of(st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=20),
                   st.text(st.sampled_from(" \t\r\n\x00\x7fa~"), max_size=6),
                   st.sampled_from(["", " lead", "trail\t", "a  b", "12", "chunked"]))


def h11_bytes(origin: Origin, target: bytes, body: bytes) -> bytes | None:
    try:
        return request_bytes(new_connection(), origin.post(target, body), body)
    except h11.LocalProtocolError:
        return None


@given(headers=st.dictionaries(names, values, max_size=5),
       path=st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=12),
       body=st.binary(max_size=40))
def test_plain_post_is_h11s_bytes_or_leaves_it_to_h11(headers: dict[str, str], path: str,
                                                       body: bytes) -> None:
    try:
        origin = Origin("http://127.0.0.1:8080/v1", headers)
    except UnicodeEncodeError:
        return  # not ASCII: the client refuses it before either is asked
    target = origin.target(path)
    plain = origin.plain_post(target, body)
    if plain is not None:
        assert plain == h11_bytes(origin, target, body)


@pytest.mark.parametrize("base_url", ["http://127.0.0.1:8766/v1", "http://localhost/",
                                      "http://[::1]:9000/api/v1/"])
def test_a_usual_request_is_made_without_h11_and_is_h11s_bytes(base_url: str) -> None:
    origin = Origin(base_url, stream_headers("sk-key", {"X-Title": "spark run"}))
    target, body = origin.target("chat/completions"), b'{"model": "m"}'
    plain = origin.plain_post(target, body)
    assert plain is not None and plain == h11_bytes(origin, target, body)
    assert plain.startswith(b"POST " + target + b" HTTP/1.1\r\nHost: ")
    assert plain.endswith(b"\r\n\r\n" + body)


@pytest.mark.parametrize("extra", [{"X-Key": "a\nb"}, {"X-Key": " padded"},
                                   {"Content-Length": "3"}, {"transfer-encoding": "chunked"},
                                   {"Bad Name": "v"}])
def test_a_header_h11_would_refuse_or_rewrite_is_left_to_h11(extra: dict[str, str]) -> None:
    origin = Origin("http://127.0.0.1:8766/v1", stream_headers("k", extra))
    assert origin.plain_post(origin.target("responses"), b"{}") is None
