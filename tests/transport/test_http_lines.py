"""Body bytes to text lines for both HTTP clients: endings split across chunks, charsets,
gzip and deflate."""

from __future__ import annotations

import gzip
import itertools
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spark_cli.transport.http_lines import LineSplitter, body_decoder, text_decoder


def lines_of(*texts: str) -> list[str]:
    splitter = LineSplitter()
    out: list[str] = []
    for text in texts:
        out += splitter.split(text)
    return out + splitter.flush()


def test_every_line_ending_ends_a_line() -> None:
    assert lines_of("a\nb\r\nc\rd\n") == ["a", "b", "c", "d"]
    assert lines_of("data: x\n\n") == ["data: x", ""]


def test_an_ending_split_across_chunks_is_one_ending() -> None:
    assert lines_of("a\r", "\nb\n") == ["a", "b"]
    assert lines_of("a\r", "b\n") == ["a", "b"]
    assert lines_of("da", "ta: x", "\n", "\n") == ["data: x", ""]
    assert lines_of("a\r", "", "\r\n") == ["a", ""]


def test_the_last_line_without_an_ending_is_kept_at_the_end() -> None:
    assert lines_of("a\nb") == ["a", "b"]
    assert lines_of("a\r") == ["a"]
    assert lines_of("") == []


def test_separators_other_than_cr_and_lf_stay_inside_the_line() -> None:
    text = '{"t": "a\u2028b\x0cc\x85d"}'
    assert lines_of("data: " + text + "\n\n") == ["data: " + text, ""]


@given(st.lists(st.sampled_from(["a", "b", "\n", "\r", "\r\n", "é"]), max_size=30),
       st.lists(st.integers(0, 40), max_size=6))
def test_chunking_never_changes_the_lines(pieces: list[str], cuts: list[int]) -> None:
    text = "".join(pieces)
    bounds = sorted({0, len(text), *(c for c in cuts if c <= len(text))})
    chunks = [text[a:b] for a, b in itertools.pairwise(bounds)]
    expected = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if expected[-1] == "":
        expected.pop()
    assert lines_of(*chunks) == expected


def test_the_charset_is_honoured_and_utf8_is_the_default() -> None:
    assert text_decoder("text/event-stream; charset=latin-1").decode(b"\xe9") == "é"
    assert text_decoder("text/event-stream").decode("é".encode()) == "é"
    assert text_decoder("text/event-stream; charset=nonsense").decode(b"\xc3\xa9") == "é"
    split = text_decoder("")
    assert split.decode(b"\xc3") + split.decode(b"\xa9") == "é"  # a character across chunks
    assert text_decoder("").decode(b"\xff") == "\ufffd"  # bad bytes are replaced, not fatal


@pytest.mark.parametrize("coding", ["gzip", "deflate", "raw-deflate"])
def test_gzip_and_deflate_bodies_decode_chunk_by_chunk(coding: str) -> None:
    body = b"data: hello\n\n" * 50
    if coding == "gzip":
        packed = gzip.compress(body)
    elif coding == "deflate":
        packed = zlib.compress(body)
    else:
        squeeze = zlib.compressobj(wbits=-zlib.MAX_WBITS)
        packed = squeeze.compress(body) + squeeze.flush()
    decode = body_decoder(coding.removeprefix("raw-"))
    assert decode is not None
    assert b"".join(decode(packed[i:i + 7]) for i in range(0, len(packed), 7)) == body


def test_identity_needs_no_decoder() -> None:
    assert body_decoder("") is None and body_decoder("identity") is None
