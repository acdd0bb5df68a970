"""TextFile: decode/encode is lossless; splices change only the hunk's bytes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spark_cli.edits.disk.textfile import decode, new_text_file, read_text_file
from spark_cli.edits.model.outcome import FileRefused

SAMPLES = [
    b"",
    b"a\nb\n",
    b"a\r\nb\r\n",
    b"a\rb\r",
    b"a\r\nb\nc\rd",
    b"no final newline",
    "caf\u00e9 \u2014 \U0001f600\n".encode(),
    b"\xef\xbb\xbfbom\r\nline\r\n",
    "\ufeffutf16\r\nx\n".encode("utf-16-le"),
    "\ufeffutf16 be\n".encode("utf-16-be"),
]


@pytest.mark.parametrize("data", SAMPLES)
def test_round_trip_is_byte_exact(data: bytes) -> None:
    tf = decode(data)
    assert "\r" not in tf.text
    assert tf.encode() == data


def test_text_uses_lf_and_remembers_each_ending() -> None:
    tf = decode(b"a\r\nb\nc\rd")
    assert tf.text == "a\nb\nc\nd"
    assert tf.endings == ("\r\n", "\n", "\r")
    assert not tf.text.endswith("\n")


def test_dominant_ending() -> None:
    assert decode(b"a\r\nb\r\nc\n").dominant == "\r\n"
    assert decode(b"single line").dominant == "\n"


def test_bom_and_utf16_detected() -> None:
    assert decode(b"\xef\xbb\xbfx\n").bom == b"\xef\xbb\xbf"
    tf = decode("\ufeffx\n".encode("utf-16-le"))
    assert tf.encoding == "utf-16-le" and tf.text == "x\n"


def test_binary_refused() -> None:
    with pytest.raises(FileRefused) as info:
        decode(b"PK\x03\x04\x00\x00garbage")
    assert info.value.reason == "binary"
    assert "binary" in info.value.message


def test_non_utf8_refused_with_offset() -> None:
    with pytest.raises(FileRefused) as info:
        decode("caf\u00e9\n".encode("latin-1"), name="x.txt")
    assert info.value.reason == "encoding"
    assert "not UTF-8 text" in info.value.message and "x.txt" in info.value.message


def test_utf32_refused() -> None:
    with pytest.raises(FileRefused, match="UTF-32"):
        decode("\ufeffx".encode("utf-32-le"))


def test_size_limit(tmp_path) -> None:
    path = tmp_path / "big.txt"
    path.write_bytes(b"x\n" * 100)
    with pytest.raises(FileRefused) as info:
        read_text_file(path, size_limit=50)
    assert info.value.reason == "too_large"
    assert read_text_file(path, size_limit=1000).text == "x\n" * 100


def test_read_keeps_mode(tmp_path) -> None:
    path = tmp_path / "run.sh"
    path.write_bytes(b"#!/bin/sh\n")
    path.chmod(0o755)
    assert read_text_file(path).mode == 0o755


def test_splice_keeps_untouched_endings_and_uses_region_style() -> None:
    tf = decode(b"one\r\ntwo\r\nthree\r\n")
    start = tf.text.index("two")
    out = tf.spliced([(start, start + len("two\n"), "TWO\nextra\n")])
    assert out.encode() == b"one\r\nTWO\r\nextra\r\nthree\r\n"


def test_splice_in_mixed_file_keeps_each_line_ending() -> None:
    tf = decode(b"a\r\nb\nc\r\nd\n")
    start = tf.text.index("b")
    end = tf.text.index("d")
    out = tf.spliced([(start, end, "b\nX\nc\n")])
    # b keeps LF, c keeps CRLF, the new line takes the dominant style (tie: CRLF first)
    assert out.encode() == b"a\r\nb\nX\r\nc\r\nd\n"


def test_splice_rejects_overlaps() -> None:
    tf = decode(b"abcdef")
    with pytest.raises(ValueError):
        tf.spliced([(2, 4, "x"), (3, 5, "y")])


def test_new_text_file_is_utf8_lf() -> None:
    assert new_text_file("a\nb\n").encode() == b"a\nb\n"


_line = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\x00"),
                max_size=8)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_line, st.sampled_from(["\n", "\r\n", "\r"])), max_size=8),
       _line, st.sampled_from(["", "bom", "utf16"]), st.data())
def test_random_files_splice_only_changes_the_region(lines, tail, enc, data) -> None:
    raw = "".join(a + b for a, b in lines) + tail
    if enc == "utf16":
        blob = b"\xff\xfe" + raw.encode("utf-16-le")
    else:
        blob = (b"\xef\xbb\xbf" if enc == "bom" else b"") + raw.encode()
    tf = decode(blob)
    assert tf.encode() == blob
    n = len(tf.text)
    start = data.draw(st.integers(0, n))
    end = data.draw(st.integers(start, n))
    out = tf.spliced([(start, end, "Z")]).encode()
    # the untouched prefix and suffix keep their bytes
    prefix = tf.replaced(tf.text[:start], tf.endings[: tf.text.count("\n", 0, start)]).encode()
    assert out.startswith(prefix)
    suffix_text = tf.text[end:]
    suffix_endings = tf.endings[len(tf.endings) - suffix_text.count("\n"):]
    suffix = tf.replaced(suffix_text, suffix_endings).encode()
    # strip the BOM that encode() prepends to the fragment (a text that starts with U+FEFF,
    # written without one, reads as a BOM file: its bytes are the same)
    suffix = suffix[len(tf.bom):]
    assert out.endswith(suffix)


def test_utf16_without_bom_gets_its_own_message() -> None:
    with pytest.raises(FileRefused) as info:
        decode("plain ascii text\n".encode("utf-16-le"))
    assert info.value.reason == "encoding" and "without a BOM" in info.value.message
