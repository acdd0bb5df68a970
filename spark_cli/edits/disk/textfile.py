"""Lossless text files: bytes -> "\\n" text plus what is needed to write the same bytes back
(each line's ending, the encoding and BOM, the mode). Binary, non-UTF-8 and oversized
files are refused with `FileRefused`."""

from __future__ import annotations

import re
import stat
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from spark_cli.edits.model.outcome import FileRefused
from spark_cli.record import record

DEFAULT_SIZE_LIMIT = 2 * 1024 * 1024  # bytes

_NEWLINE = re.compile(r"\r\n|\r|\n")
_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


@record
class TextFile:
    """Decoded text and what is needed to encode it back byte for byte."""

    text: str
    endings: tuple[str, ...]  # one per "\n" in text, in order: "\r\n", "\n" or "\r"
    encoding: str = "utf-8"  # codec for the body: utf-8, utf-16-le or utf-16-be
    bom: bytes = b""
    mode: int | None = None  # permission bits of the file on disk, if it existed

    @property
    def dominant(self) -> str:
        """The most common line ending (first seen wins a tie); LF for a file without any."""
        counts = Counter(self.endings)  # in first-seen order: max keeps the first of a tie
        return max(counts, key=counts.__getitem__) if counts else "\n"

    def encode(self) -> bytes:
        """The file's bytes: each line with its own ending, in the original encoding."""
        if not self.endings or (self.endings[0] == "\n" and len(set(self.endings)) == 1):
            raw = self.text
        else:
            lines = self.text.split("\n")
            n = len(lines) - 1  # one ending per "\n" ("\n" for any the tuple lacks)
            ends = [*self.endings[:n], *["\n"] * (n - len(self.endings)), ""]
            raw = "".join(line + end for line, end in zip(lines, ends, strict=True))
        return self.bom + raw.encode(self.encoding)

    def replaced(self, text: str, endings: Sequence[str]) -> TextFile:
        return TextFile(text, tuple(endings), self.encoding, self.bom, self.mode)

    def spliced(self, splices: Sequence[tuple[int, int, str]]) -> TextFile:
        """Replace ``text[start:end]`` by each replacement; untouched lines keep their endings."""
        text, old_endings, dominant = self.text, self.endings, self.dominant
        pieces: list[str] = []
        endings: list[str] = []
        pos = line = 0
        for start, end, replacement in splices:
            if start < pos or end < start:
                raise ValueError("splices must be sorted and must not overlap")
            before = text.count("\n", pos, start)
            endings.extend(old_endings[line : line + before])
            line += before
            inside = text.count("\n", start, end)
            region = old_endings[line : line + inside]
            line += inside
            endings.extend(_region_endings(text[start:end], replacement, region, dominant))
            pieces.append(text[pos:start])
            pieces.append(replacement)
            pos = end
        pieces.append(text[pos:])
        endings.extend(old_endings[line:])
        return self.replaced("".join(pieces), endings)


def _region_endings(old: str, new: str, region: Sequence[str], dominant: str) -> list[str]:
    """Endings for the newlines of ``new``, replacing ``old`` (whose endings are ``region``)."""
    wanted = new.count("\n")
    if not wanted:
        return []
    if len(set(region)) <= 1:  # the usual case: one style in the region
        return [region[0] if region else dominant] * wanted
    old_lines, new_lines = old.split("\n"), new.split("\n")
    result: list[str | None] = [None] * wanted
    import difflib  # deferred: launch -> request

    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag not in ("equal", "replace"):
            continue
        for offset in range(min(i2 - i1, j2 - j1)):
            i, j = i1 + offset, j1 + offset
            if i < len(region) and j < wanted:
                result[j] = region[i]
    return [e if e is not None else dominant for e in result]


def too_large(name: str, size: int, limit: int) -> FileRefused:
    return FileRefused(f"{name} is too large to edit ({size:,} bytes; the limit is {limit:,})",
                       "too_large")


def _looks_utf16(sample: bytes) -> bool:
    """NUL in (nearly) every other byte and nowhere else: ASCII-ish UTF-16 text."""
    half = len(sample) // 2
    if half < 2:
        return False
    odd, even = sample[1::2].count(0), sample[0::2].count(0)
    return (odd >= 0.9 * half and even == 0) or (even >= 0.9 * half and odd == 0)


def decode(data: bytes, *, mode: int | None = None, name: str = "file",
           size_limit: int = DEFAULT_SIZE_LIMIT) -> TextFile:
    """Decode file bytes; raises `FileRefused` for binary, non-UTF-8 or oversized input."""
    if len(data) > size_limit:
        raise too_large(name, len(data), size_limit)
    bom, encoding = next(((m, c) for m, c in _BOMS if data.startswith(m)), (b"", "utf-8"))
    if data.startswith(b"\xff\xfe\x00\x00") or data.startswith(b"\x00\x00\xfe\xff"):
        raise FileRefused(f"{name} is UTF-32 text; spark edits only UTF-8 and UTF-16", "encoding")
    body = data[len(bom):]
    if not encoding.startswith("utf-16") and b"\x00" in body:
        if _looks_utf16(body[:4096]):
            raise FileRefused(f"{name} looks like UTF-16 text without a BOM; spark edits "
                                "UTF-16 only with a BOM (or UTF-8)", "encoding")
        raise FileRefused(f"{name} is a binary file (it contains NUL bytes); not edited",
                            "binary")
    try:
        raw = body.decode(encoding)
    except UnicodeDecodeError as exc:
        raise FileRefused(
            f"{name} is not UTF-8 text (invalid byte 0x{body[exc.start]:02x} at offset "
            f"{exc.start + len(bom)}); spark edits only UTF-8 and UTF-16 files with a BOM",
            "encoding",
        ) from None
    if "\x00" in raw:
        raise FileRefused(f"{name} is a binary file (it contains NUL characters); not edited",
                            "binary")
    if "\r" not in raw:
        return TextFile(raw, ("\n",) * raw.count("\n"), encoding, bom, mode)
    return TextFile(_NEWLINE.sub("\n", raw), tuple(_NEWLINE.findall(raw)), encoding, bom, mode)


def read_text_file(path: Path, *, name: str | None = None,
                   size_limit: int = DEFAULT_SIZE_LIMIT) -> TextFile:
    """Read and decode ``path`` (which must be a regular file), keeping its mode."""
    st = path.stat()
    label = name or str(path)
    if not stat.S_ISREG(st.st_mode):
        raise FileRefused(f"{label} is not a regular file", "not_regular")
    if st.st_size > size_limit:
        raise too_large(label, st.st_size, size_limit)
    return decode(path.read_bytes(), mode=stat.S_IMODE(st.st_mode), name=label,
                  size_limit=size_limit)


def new_text_file(text: str, *, mode: int | None = None) -> TextFile:
    """A file that does not exist yet: UTF-8, LF endings."""
    return TextFile(text, ("\n",) * text.count("\n"), "utf-8", b"", mode)
